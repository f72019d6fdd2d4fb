import { MemoryLevel } from 'memory-level';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { typeMatcher } from '../../../src/events/event-filter.js';
import type { EventPayload, VigilEvent } from '../../../src/protocol/events.schema.js';
import type { WebhookRecord } from '../../../src/protocol/webhooks.schema.js';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import type { VigilDb } from '../../../src/subsystems/store/vigil-db.js';
import { retryDelayMs } from '../../../src/subsystems/webhooks/webhook-backoff.js';
import { WebhookOutbox, type WebhookNotifier } from '../../../src/subsystems/webhooks/webhook-outbox.js';
import type {
  UnsignedWebhookRequest,
  WebhookRequest,
  WebhookResponse,
} from '../../../src/subsystems/webhooks/webhook-post.js';
import { newWebhookSecret, signedRequest } from '../../../src/subsystems/webhooks/webhook-signing.js';
import { WebhookStore } from '../../../src/subsystems/webhooks/webhook-store.js';

const HOUR = 3_600_000;
const START = Date.parse('2026-01-01T00:00:00Z');

/** Lets every pending promise, store write and microtask run (no time passes on the simulated clock). */
async function settle(rounds = 30): Promise<void> {
  for (let i = 0; i < rounds; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

type Reply = number | 'refuse' | 'hang' | Promise<number>;

/** A receiver scripted per request: a status, a refused connection, no answer (until aborted), or a later status. */
class FakeReceiver {
  readonly received: Array<{ id: string; body: string; seq: number }> = [];
  readonly requests: WebhookRequest[] = [];
  reply: (request: WebhookRequest) => Reply = () => 200;
  constructor(private readonly secret: () => string) {}

  post = (request: WebhookRequest): Promise<WebhookResponse> => {
    this.requests.push(request);
    // Every request is signed as the specification says; verified as at the simulated time (the library checks the
    // timestamp against Date.now()).
    vi.setSystemTime(Number(request.headers['webhook-timestamp']) * 1000);
    const verified = new Webhook(this.secret()).verify(request.body, { ...request.headers }) as { seq: number };
    const reply = this.reply(request);
    if (reply === 'refuse') return Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }));
    if (reply instanceof Promise)
      return reply.then((status) => {
        this.received.push({ id: request.headers['webhook-id']!, body: request.body, seq: verified.seq });
        return { status };
      });
    if (reply === 'hang')
      return new Promise((_, reject) => request.signal.addEventListener('abort', () => reject(new Error('aborted'))));
    if (reply >= 200 && reply < 300)
      this.received.push({ id: request.headers['webhook-id']!, body: request.body, seq: verified.seq });
    return Promise.resolve({ status: reply });
  };
}

describe('WebhookOutbox (simulated clock, injected POST)', () => {
  const dbs: VigilDb[] = [];
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterEach(async () => {
    vi.useRealTimers();
    for (const db of dbs.splice(0)) await db.close();
  });

  async function setUp(options: { types?: string[]; deliveredSeq?: number; retryPost?: boolean } = {}) {
    const clock = createSimulatedClock(START);
    const db = new MemoryLevel<string, string>() as unknown as VigilDb;
    dbs.push(db);
    const store = await WebhookStore.open(db);
    const journal: VigilEvent[] = [];
    let seq = 0;
    const notices: VigilEvent[] = [];
    const outboxRef: { current?: WebhookOutbox } = {};
    const publish = (event: VigilEvent): void => {
      journal.push(event);
      outboxRef.current?.notify(event);
    };
    const notifier: WebhookNotifier = {
      emit: (type, payload) => {
        const event = {
          seq: (seq += 1),
          type,
          at: new Date(clock.now()).toISOString(),
          beat: 0,
          ...(payload as object),
        } as VigilEvent;
        notices.push(event);
        publish(event);
        return event;
      },
    };
    const emit = <T extends 'agent.reply'>(type: T, payload: EventPayload<T>): VigilEvent => {
      const event = {
        seq: (seq += 1),
        type,
        at: new Date(clock.now()).toISOString(),
        beat: 0,
        ...payload,
      } as VigilEvent;
      publish(event);
      return event;
    };
    const secret = newWebhookSecret();
    const record: WebhookRecord = {
      id: 'wh_00000000000000a1',
      name: 'receiver',
      url: 'http://receiver.test/hook',
      types: options.types ?? ['agent.reply'],
      secret,
      createdAt: START,
      windowFloorAt: START,
      deliveredSeq: options.deliveredSeq ?? 0,
      health: { state: 'ok' },
    };
    await store.save(record);
    const receiver = new FakeReceiver(() => secret);
    // Which POST each request went by: `warm` (post) or `cold` (retryPost), in order.
    const sentBy: Array<'warm' | 'cold'> = [];
    const outbox = new WebhookOutbox({
      store,
      events: {
        read: (after, types, limit) => {
          const matches = typeMatcher(types);
          return Promise.resolve(journal.filter((event) => event.seq > after && matches(event.type)).slice(0, limit));
        },
      },
      post: (request) => {
        sentBy.push('warm');
        return receiver.post(request);
      },
      ...(options.retryPost === true
        ? {
            retryPost: (request: UnsignedWebhookRequest) => {
              sentBy.push('cold');
              return receiver.post(signedRequest(request));
            },
          }
        : {}),
      clock,
      notifier,
      settings: { timeoutMs: 10_000, retryWindowMs: 24 * HOUR, pageSize: 3 },
      random: () => 0.999,
    });
    outboxRef.current = outbox;
    return { clock, store, journal, notices, emit, receiver, outbox, record, db, sentBy };
  }

  it('delivers every event of its types in seq order, one at a time, the cursor stored after each 2xx', async () => {
    const t = await setUp();
    t.outbox.start();
    for (let i = 0; i < 7; i += 1) t.emit('agent.reply', { turnId: `t${i}`, text: `reply ${i}` });
    await settle();
    expect(t.receiver.received.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(t.store.get(t.record.id)?.deliveredSeq).toBe(7);
    const attempts = await t.store.attempts(t.record.id, 10);
    expect(attempts.map((a) => a.seq)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(attempts[0]).toMatchObject({ attempt: 1, status: 200 });
    await t.outbox.stop();
  });

  it('retries a failing endpoint on the backoff schedule with the same webhook-id, then recovers', async () => {
    const t = await setUp();
    t.receiver.reply = () => 503;
    t.outbox.start();
    t.emit('agent.reply', { turnId: 't1', text: 'one' });
    t.emit('agent.reply', { turnId: 't2', text: 'two' });
    await settle();
    expect(t.receiver.requests).toHaveLength(1);
    expect(t.notices.map((n) => n.type)).toEqual(['webhook.failing']);
    expect(t.store.get(t.record.id)?.health).toMatchObject({ state: 'failing', failures: 1 });
    // The first retry within about a second, then about 2 s, 4 s: nothing before each.
    for (const wait of [1, 2, 3].map((failures) => retryDelayMs(failures, () => 0.999))) {
      t.clock.increment(wait - 10);
      await settle();
      const before = t.receiver.requests.length;
      t.clock.increment(10);
      await settle();
      expect(t.receiver.requests.length).toBe(before + 1);
    }
    const ids = new Set(t.receiver.requests.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    t.receiver.reply = () => 200;
    t.clock.increment(8000);
    await settle();
    expect(t.receiver.received.map((r) => r.seq)).toEqual([1, 2]);
    expect(t.notices.map((n) => n.type)).toEqual(['webhook.failing', 'webhook.recovered']);
    const [, latest] = await t.store.attempts(t.record.id, 2);
    expect(latest).toMatchObject({ seq: 1, attempt: 5, status: 200 });
    await t.outbox.stop();
  });

  it('sends an ok endpoint its events by `post`, and the retries at a failing one and webhooks.test by `retryPost`', async () => {
    const t = await setUp({ retryPost: true });
    t.outbox.start();
    t.emit('agent.reply', { turnId: 't1', text: 'one' });
    await settle();
    t.receiver.reply = () => 503;
    t.emit('agent.reply', { turnId: 't2', text: 'two' });
    await settle();
    t.clock.increment(retryDelayMs(1, () => 0.999));
    await settle();
    t.receiver.reply = () => 200;
    t.clock.increment(retryDelayMs(2, () => 0.999));
    await settle();
    const third = t.emit('agent.reply', { turnId: 't3', text: 'three' });
    await settle();
    await t.outbox.test(t.record.id, t.store.get(t.record.id)!);
    // Event 1 while ok; event 2's first attempt while ok, its two retries while failing; event 3 ok again; the test.
    expect(t.sentBy).toEqual(['warm', 'warm', 'cold', 'cold', 'warm', 'cold']);
    expect(t.receiver.received.map((r) => r.seq)).toEqual([1, 2, third.seq, 0]);
    await t.outbox.stop();
  });

  it('disables at once on 410 and delivers nothing more until enabled', async () => {
    const t = await setUp();
    t.receiver.reply = () => 410;
    t.outbox.start();
    t.emit('agent.reply', { turnId: 't1', text: 'one' });
    await settle();
    expect(t.store.get(t.record.id)?.health).toMatchObject({ state: 'disabled', seq: 1 });
    const disabled = t.notices.find((n) => n.type === 'webhook.disabled');
    expect(disabled).toMatchObject({ id: t.record.id, failedSeq: 1 });
    t.emit('agent.reply', { turnId: 't2', text: 'two' });
    t.clock.increment(HOUR);
    await settle();
    expect(t.receiver.requests).toHaveLength(1);
    t.receiver.reply = () => 200;
    await t.outbox.enable(t.record.id);
    await settle();
    expect(t.receiver.received.map((r) => r.seq)).toEqual([1, 3]);
    await t.outbox.stop();
  });

  it('disables after the retry hours since the oldest undelivered event, retries never more than an hour apart', async () => {
    const t = await setUp();
    t.receiver.reply = () => 'refuse';
    t.outbox.start();
    t.emit('agent.reply', { turnId: 't1', text: 'one' });
    await settle();
    let last = t.receiver.requests.length;
    for (let minutes = 0; minutes < 25 * 60 && t.store.get(t.record.id)?.health.state !== 'disabled'; minutes += 10) {
      t.clock.increment(10 * 60_000);
      await settle();
      if (t.receiver.requests.length > last) last = t.receiver.requests.length;
    }
    const record = t.store.get(t.record.id)!;
    expect(record.health).toMatchObject({ state: 'disabled', seq: 1 });
    expect(record.lastAttemptAt! - START).toBeGreaterThanOrEqual(24 * HOUR);
    expect(record.lastAttemptAt! - START).toBeLessThan(25 * HOUR);
    // About 12 doublings to the hour cap, then hourly: some 30 attempts in a day, not thousands.
    expect(t.receiver.requests.length).toBeGreaterThan(20);
    expect(t.receiver.requests.length).toBeLessThan(45);
    expect(t.notices.map((n) => n.type)).toEqual(['webhook.failing', 'webhook.disabled']);
    const [attempt] = await t.store.attempts(t.record.id, 1);
    expect(attempt?.error).toMatch(/ECONNREFUSED/);
    await t.outbox.stop();
  });

  it('fails an attempt that gets no answer within the timeout, and never waits longer', async () => {
    const t = await setUp();
    t.receiver.reply = () => 'hang';
    t.outbox.start();
    t.emit('agent.reply', { turnId: 't1', text: 'one' });
    await settle();
    expect(t.store.get(t.record.id)?.health.state).toBe('ok');
    t.clock.increment(10_000);
    await settle();
    const [attempt] = await t.store.attempts(t.record.id, 1);
    expect(attempt).toMatchObject({ seq: 1, error: 'no answer within 10000 ms', ms: 10_000 });
    expect(t.store.get(t.record.id)?.health.state).toBe('failing');
    await t.outbox.stop();
  });

  it('redelivers from the seq given, in order, with the same ids', async () => {
    const t = await setUp();
    t.outbox.start();
    for (let i = 0; i < 4; i += 1) t.emit('agent.reply', { turnId: `t${i}`, text: `reply ${i}` });
    await settle();
    const firstIds = t.receiver.received.map((r) => r.id);
    await t.outbox.redeliver(t.record.id, 2);
    await settle();
    expect(t.receiver.received.map((r) => r.seq)).toEqual([1, 2, 3, 4, 3, 4]);
    expect(t.receiver.received.slice(4).map((r) => r.id)).toEqual(firstIds.slice(2));
    await t.outbox.stop();
  });

  it('keeps the cursor a redeliver moved back when an attempt in flight answers while the move is being stored', async () => {
    const t = await setUp();
    t.outbox.start();
    for (let i = 0; i < 2; i += 1) t.emit('agent.reply', { turnId: `t${i}`, text: `reply ${i}` });
    await settle();
    let answer: (status: number) => void = () => undefined;
    t.receiver.reply = () => new Promise<number>((resolve) => (answer = resolve));
    t.emit('agent.reply', { turnId: 't2', text: 'reply 2' });
    await settle();
    expect(t.receiver.requests).toHaveLength(3);
    t.receiver.reply = () => 200;
    // The redeliver's change is on its way to the store when seq 3's 2xx arrives: that outcome is applied after it.
    const redelivered = t.outbox.redeliver(t.record.id, 1);
    answer(204);
    await redelivered;
    await settle();
    expect(t.receiver.received.map((r) => r.seq)).toEqual([1, 2, 3, 2, 3]);
    expect(t.store.get(t.record.id)?.deliveredSeq).toBe(3);
    await t.outbox.stop();
  });

  it('resumes after a restart from the stored cursor', async () => {
    const t = await setUp();
    t.outbox.start();
    t.emit('agent.reply', { turnId: 't1', text: 'one' });
    await settle();
    await t.outbox.stop();
    t.emit('agent.reply', { turnId: 't2', text: 'two' });
    t.emit('agent.reply', { turnId: 't3', text: 'three' });
    const again = new WebhookOutbox({
      store: await WebhookStore.open(t.db),
      events: {
        read: (after, _types, limit) => Promise.resolve(t.journal.filter((e) => e.seq > after).slice(0, limit)),
      },
      post: t.receiver.post,
      clock: t.clock,
      notifier: { emit: () => undefined },
      settings: { timeoutMs: 10_000, retryWindowMs: 24 * HOUR },
    });
    again.start();
    await settle();
    expect(t.receiver.received.map((r) => r.seq)).toEqual([1, 2, 3]);
    await again.stop();
  });

  it('reports a gap for the events the journal drops before delivery, and moves the cursor past them', async () => {
    const t = await setUp();
    t.receiver.reply = () => 500;
    t.outbox.start();
    const events = [1, 2, 3].map((i) => t.emit('agent.reply', { turnId: `t${i}`, text: `r${i}` }));
    await settle();
    expect(t.outbox.receivedThrough('enabled')).toBe(0);
    await t.outbox.dropping(events.slice(0, 2));
    const gap = t.notices.find((n) => n.type === 'webhook.gap');
    expect(gap).toMatchObject({ id: t.record.id, fromSeq: 1, toSeq: 2, count: 2 });
    expect(t.store.get(t.record.id)?.deliveredSeq).toBe(2);
    t.receiver.reply = () => 200;
    t.clock.increment(2000);
    await settle();
    expect(t.receiver.received.map((r) => r.seq)).toEqual([3]);
    await t.outbox.stop();
  });

  it('keeps webhook events from an endpoint unless its types name them, and never sends one its own', async () => {
    const t = await setUp({ types: ['*'] });
    t.receiver.reply = () => 500;
    t.outbox.start();
    t.emit('agent.reply', { turnId: 't1', text: 'one' });
    await settle();
    t.receiver.reply = () => 200;
    t.clock.increment(2000);
    await settle();
    // webhook.failing and webhook.recovered (its own) were journaled after seq 1; '*' does not include them.
    expect(t.notices.map((n) => n.type)).toEqual(['webhook.failing', 'webhook.recovered']);
    expect(t.receiver.received.map((r) => JSON.parse(r.body).type)).toEqual(['agent.reply']);
    await t.outbox.stop();
  });

  it('sends a webhook.test event to the endpoint alone and returns the attempt', async () => {
    const t = await setUp();
    t.outbox.start();
    const attempt = await t.outbox.test(t.record.id, t.record);
    expect(attempt).toMatchObject({ seq: 0, attempt: 1, status: 200 });
    expect(attempt.webhookId).toMatch(/^evt_test_/);
    expect(JSON.parse(t.receiver.received[0]!.body)).toMatchObject({ type: 'webhook.test', id: t.record.id, seq: 0 });
    expect(t.journal).toHaveLength(0);
    expect(t.store.get(t.record.id)?.deliveredSeq).toBe(0);
    await t.outbox.stop();
  });
});
