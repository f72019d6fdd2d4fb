import { describe, expect, it } from 'vitest';
import type { WebhookRecord } from '../../../src/protocol/webhooks.schema.js';
import { retryDelayMs } from '../../../src/subsystems/webhooks/webhook-backoff.js';
import {
  endpointTransition,
  type EndpointSettings,
} from '../../../src/subsystems/webhooks/webhook-endpoint.machine.js';

const HOUR = 3_600_000;
const settings: EndpointSettings = {
  retryWindowMs: 24 * HOUR,
  backoff: { baseMs: 1000, capMs: HOUR },
  random: () => 0.5,
};
const record: WebhookRecord = {
  id: 'wh_0123456789abcdef',
  name: 'receiver',
  url: 'https://example.test/hook',
  types: ['agent.reply'],
  secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
  createdAt: 0,
  windowFloorAt: 0,
  deliveredSeq: 10,
  health: { state: 'ok' },
};
const fail = (at: number, extra: { status?: number | undefined; eventAt?: number; error?: string } = {}) =>
  ({
    type: 'failed',
    seq: 11,
    at,
    eventAt: extra.eventAt ?? 1000,
    error: extra.error ?? 'HTTP 500',
    status: 'status' in extra ? extra.status : 500,
  }) as const;

describe('endpointTransition', () => {
  it('advances the cursor on a 2xx and emits nothing when it was ok', () => {
    const next = endpointTransition(
      record,
      { type: 'delivered', seq: 11, at: 5, status: 204, advance: true },
      settings,
    );
    expect(next.record).toMatchObject({ deliveredSeq: 11, health: { state: 'ok' }, lastStatus: 204, lastAttemptAt: 5 });
    expect(next.notices).toEqual([]);
  });

  it('keeps the cursor when it moved under the attempt (advance: false)', () => {
    const next = endpointTransition(
      record,
      { type: 'delivered', seq: 11, at: 5, status: 200, advance: false },
      settings,
    );
    expect(next.record.deliveredSeq).toBe(10);
  });

  it('goes from ok to failing with webhook.failing once, and schedules the retry by the backoff', () => {
    const first = endpointTransition(record, fail(2000), settings);
    expect(first.record.health).toEqual({ state: 'failing', failures: 1, since: 2000, error: 'HTTP 500' });
    expect(first.record.nextAttemptAt).toBe(2000 + retryDelayMs(1, () => 0.5));
    expect(first.record.windowFrom).toBe(1000);
    expect(first.notices).toEqual([{ type: 'webhook.failing', payload: { id: record.id, error: 'http_5xx' } }]);
    const second = endpointTransition(first.record, fail(5000), settings);
    expect(second.record.health).toMatchObject({ state: 'failing', failures: 2, since: 2000 });
    expect(second.notices).toEqual([]);
    expect(second.record.deliveredSeq).toBe(10);
  });

  it('recovers from failing on a 2xx with webhook.recovered and a fresh window', () => {
    const failing = endpointTransition(record, fail(2000), settings).record;
    const next = endpointTransition(
      failing,
      { type: 'delivered', seq: 11, at: 9000, status: 200, advance: true },
      settings,
    );
    expect(next.record).toMatchObject({ health: { state: 'ok' }, deliveredSeq: 11 });
    expect(next.record.windowFrom).toBeUndefined();
    expect(next.record.nextAttemptAt).toBeUndefined();
    expect(next.notices).toEqual([{ type: 'webhook.recovered', payload: { id: record.id } }]);
  });

  it('disables at once on 410 Gone, with webhook.disabled naming the seq', () => {
    const next = endpointTransition(record, fail(2000, { status: 410 }), settings);
    expect(next.record.health).toMatchObject({ state: 'disabled', seq: 11 });
    expect(next.notices).toHaveLength(1);
    expect(next.notices[0]).toMatchObject({ type: 'webhook.disabled', payload: { id: record.id, failedSeq: 11 } });
  });

  it('disables once the retry window since the oldest undelivered event has passed', () => {
    let state = endpointTransition(record, fail(2000), settings).record;
    state = endpointTransition(state, fail(1000 + 24 * HOUR - 1), settings).record;
    expect(state.health.state).toBe('failing');
    const last = endpointTransition(state, fail(1000 + 24 * HOUR), settings);
    expect(last.record.health).toMatchObject({ state: 'disabled', seq: 11, error: 'HTTP 500' });
    expect(last.notices.map((notice) => notice.type)).toEqual(['webhook.disabled']);
    // The event (read scope) says why in a class; the record (webhooks.list, operate) keeps the error itself.
    expect(last.notices[0]!.payload).toMatchObject({ error: 'http_5xx' });
    const refused = endpointTransition(
      endpointTransition(record, fail(2000, { status: undefined, error: 'connect ECONNREFUSED 10.0.0.7:22' }), settings)
        .record,
      fail(1000 + 24 * HOUR, { status: undefined, error: 'connect ECONNREFUSED 10.0.0.7:22' }),
      settings,
    );
    expect(refused.notices[0]!.payload).toMatchObject({ error: 'refused' });
    expect(refused.record.health).toMatchObject({ error: 'connect ECONNREFUSED 10.0.0.7:22' });
  });

  it('starts the window no earlier than an enable, so an old backlog is not disabled at its first failure', () => {
    const disabled = endpointTransition(record, fail(2000, { status: 410 }), settings).record;
    const enabled = endpointTransition(disabled, { type: 'enabled', at: 48 * HOUR }, settings).record;
    expect(enabled.health).toEqual({ state: 'ok' });
    const next = endpointTransition(enabled, fail(48 * HOUR + 5, { eventAt: 1000 }), settings);
    expect(next.record.health.state).toBe('failing');
    expect(next.record.windowFrom).toBe(48 * HOUR);
  });

  it('ignores attempt outcomes while disabled (an attempt in flight at the disable)', () => {
    const disabled = endpointTransition(record, fail(2000, { status: 410 }), settings).record;
    const next = endpointTransition(
      disabled,
      { type: 'delivered', seq: 11, at: 3000, status: 200, advance: true },
      settings,
    );
    expect(next.record.health.state).toBe('disabled');
    expect(next.record.deliveredSeq).toBe(10);
    expect(next.notices).toEqual([]);
  });

  it('moves the cursor back on redeliver but never forward, and retries at once', () => {
    const failing = endpointTransition(record, fail(2000), settings).record;
    const back = endpointTransition(failing, { type: 'redeliver', afterSeq: 3, at: 4000 }, settings).record;
    expect(back.deliveredSeq).toBe(3);
    expect(back.nextAttemptAt).toBeUndefined();
    expect(endpointTransition(record, { type: 'redeliver', afterSeq: 99, at: 1 }, settings).record.deliveredSeq).toBe(
      10,
    );
  });

  it('passes a gap: the cursor moves to its end, never back', () => {
    expect(endpointTransition(record, { type: 'skipped', throughSeq: 40 }, settings).record.deliveredSeq).toBe(40);
    expect(endpointTransition(record, { type: 'skipped', throughSeq: 4 }, settings).record.deliveredSeq).toBe(10);
  });
});

describe('retryDelayMs', () => {
  it('doubles from the base, jittered between half and all of it, capped at one hour', () => {
    const low = () => 0;
    const high = () => 1 - 1e-12;
    expect(retryDelayMs(1, low)).toBe(500);
    expect(retryDelayMs(1, high)).toBe(1000);
    expect(retryDelayMs(2, high)).toBe(2000);
    expect(retryDelayMs(5, low)).toBe(8000);
    for (const failures of [13, 20, 100, 10_000]) {
      expect(retryDelayMs(failures, high)).toBe(HOUR);
      expect(retryDelayMs(failures, low)).toBe(HOUR / 2);
    }
  });

  it('stays within [ceiling / 2, ceiling] for any random value', () => {
    for (let failures = 1; failures < 30; failures += 1) {
      const ceiling = Math.min(HOUR, 1000 * 2 ** (failures - 1));
      for (const r of [0, 0.1, 0.5, 0.9, 0.9999]) {
        const delay = retryDelayMs(failures, () => r);
        expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
        expect(delay).toBeLessThanOrEqual(ceiling);
      }
    }
  });
});
