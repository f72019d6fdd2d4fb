import { describe, expect, it } from 'vitest';
import {
  CRON_COUNT_CAP,
  cronProblem,
  dueFirings,
  nextDueAfter,
  type ScheduleTiming,
} from '../../../src/subsystems/schedules/schedule-timing.js';

const t = (iso: string): number => Date.parse(iso);
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const berlin = (cron: string): ScheduleTiming => ({ cron, timezone: 'Europe/Berlin' });

/** The first `n` due times after `from`, following nextDueAfter as a running schedule does. */
function firings(timing: ScheduleTiming, from: string, n: number): Array<string | null> {
  const out: Array<string | null> = [];
  let at: number | null = t(from);
  for (let i = 0; i < n && at !== null; i += 1) {
    at = nextDueAfter(timing, at);
    out.push(iso(at));
  }
  return out;
}

describe('schedule timing', () => {
  it('fires a daily 08:00 Europe/Berlin cron at 08:00 local across the spring-forward of 2026-03-29', () => {
    expect(firings(berlin('0 8 * * *'), '2026-03-27T12:00:00Z', 3)).toEqual([
      '2026-03-28T07:00:00.000Z', // 08:00 CET (UTC+1)
      '2026-03-29T06:00:00.000Z', // 08:00 CEST (UTC+2), the first day of summer time
      '2026-03-30T06:00:00.000Z',
    ]);
  });

  it('fires a daily 08:00 Europe/Berlin cron at 08:00 local across the fall-back of 2026-10-25', () => {
    expect(firings(berlin('0 8 * * *'), '2026-10-23T12:00:00Z', 3)).toEqual([
      '2026-10-24T06:00:00.000Z', // 08:00 CEST
      '2026-10-25T07:00:00.000Z', // 08:00 CET, the first day of winter time
      '2026-10-26T07:00:00.000Z',
    ]);
  });

  it('runs a fixed time inside the spring-forward gap at the first valid time after it, once', () => {
    // 02:30 does not exist in Berlin on 2026-03-29: clocks go from 02:00 CET to 03:00 CEST.
    expect(firings(berlin('30 2 * * *'), '2026-03-27T12:00:00Z', 3)).toEqual([
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:00:00.000Z', // 03:00 CEST
      '2026-03-30T00:30:00.000Z',
    ]);
  });

  it('runs a fixed time that occurs twice in the fall-back once, at its first occurrence', () => {
    // 02:30 happens twice in Berlin on 2026-10-25 (CEST, then CET).
    expect(firings(berlin('30 2 * * *'), '2026-10-23T12:00:00Z', 3)).toEqual([
      '2026-10-24T00:30:00.000Z',
      '2026-10-25T00:30:00.000Z', // 02:30 CEST; not again at 02:30 CET (01:30Z)
      '2026-10-26T01:30:00.000Z',
    ]);
  });

  it('runs an interval pattern on both occurrences of the repeated hour and skips the missing one', () => {
    expect(firings(berlin('*/30 * * * *'), '2026-10-24T23:45:00Z', 5)).toEqual([
      '2026-10-25T00:00:00.000Z', // 02:00 CEST
      '2026-10-25T00:30:00.000Z', // 02:30 CEST
      '2026-10-25T01:00:00.000Z', // 02:00 CET
      '2026-10-25T01:30:00.000Z', // 02:30 CET
      '2026-10-25T02:00:00.000Z', // 03:00 CET
    ]);
    expect(firings(berlin('*/30 * * * *'), '2026-03-29T00:15:00Z', 3)).toEqual([
      '2026-03-29T00:30:00.000Z', // 01:30 CET
      '2026-03-29T01:00:00.000Z', // 03:00 CEST: 02:00 and 02:30 never happened
      '2026-03-29T01:30:00.000Z',
    ]);
  });

  it('evaluates a cron in its own zone, not the daemon’s', () => {
    expect(firings({ cron: '0 8 * * *', timezone: 'America/New_York' }, '2026-01-10T00:00:00Z', 1)).toEqual([
      '2026-01-10T13:00:00.000Z',
    ]);
    expect(firings({ cron: '0 8 * * *', timezone: 'UTC' }, '2026-01-10T00:00:00Z', 1)).toEqual([
      '2026-01-10T08:00:00.000Z',
    ]);
  });

  it('counts a cron’s firings in a span across a transition, keeping the newest', () => {
    const due = dueFirings(berlin('0 8 * * *'), t('2026-03-28T07:00:00Z'), t('2026-03-31T05:59:00Z'), 2);
    expect(due).toEqual({
      count: 3,
      exact: true,
      firstDueAt: t('2026-03-28T07:00:00Z'),
      lastDueAt: t('2026-03-30T06:00:00Z'),
      recent: [t('2026-03-29T06:00:00Z'), t('2026-03-30T06:00:00Z')],
      nextAt: t('2026-03-31T06:00:00Z'),
    });
  });

  it('includes a firing due exactly at the end of the span', () => {
    const due = dueFirings(berlin('0 8 * * *'), t('2026-03-28T07:00:00Z'), t('2026-03-29T06:00:00Z'), 10);
    expect(due?.count).toBe(2);
    expect(due?.nextAt).toBe(t('2026-03-30T06:00:00Z'));
  });

  it('is null when the next firing lies after the span', () => {
    expect(dueFirings(berlin('0 8 * * *'), t('2026-03-28T07:00:00Z'), t('2026-03-28T06:59:59Z'), 10)).toBeNull();
  });

  it('counts an interval by arithmetic, however long the span', () => {
    const start = t('2026-01-01T00:00:00Z');
    const due = dueFirings({ everyMs: 60_000, timezone: 'UTC' }, start, start + 365 * 86_400_000 + 30_000, 3);
    expect(due).toMatchObject({
      count: 365 * 1440 + 1,
      exact: true,
      firstDueAt: start,
      lastDueAt: start + 365 * 86_400_000,
    });
    expect(due?.recent).toEqual([
      start + 365 * 86_400_000 - 120_000,
      start + 365 * 86_400_000 - 60_000,
      start + 365 * 86_400_000,
    ]);
    expect(due?.nextAt).toBe(start + 365 * 86_400_000 + 60_000);
  });

  it('fires a one-shot once and then never again', () => {
    const at = t('2026-05-01T09:00:00Z');
    expect(nextDueAfter({ at, timezone: 'UTC' }, at - 1)).toBe(at);
    expect(nextDueAfter({ at, timezone: 'UTC' }, at)).toBeNull();
    expect(dueFirings({ at, timezone: 'UTC' }, at, at + 5_000, 10)).toEqual({
      count: 1,
      exact: true,
      firstDueAt: at,
      lastDueAt: at,
      recent: [at],
      nextAt: null,
    });
  });

  it('stops counting a frequent cron at the cap but keeps the newest firings and the next one exact', () => {
    const from = t('2026-03-28T00:00:00Z');
    const to = t('2026-03-30T00:00:30Z'); // two days of every minute: 2881 firings, past the cap
    const due = dueFirings(berlin('* * * * *'), from, to, 3);
    expect(due?.exact).toBe(false);
    expect(due?.count).toBeGreaterThanOrEqual(CRON_COUNT_CAP);
    expect(due?.recent).toEqual([t('2026-03-29T23:58:00Z'), t('2026-03-29T23:59:00Z'), t('2026-03-30T00:00:00Z')]);
    expect(due?.lastDueAt).toBe(t('2026-03-30T00:00:00Z'));
    expect(due?.nextAt).toBe(t('2026-03-30T00:01:00Z'));
  });

  it('names what is wrong with a cron expression', () => {
    expect(cronProblem('0 8 * * 1-5', 'Europe/Berlin', t('2026-01-01T00:00:00Z'))).toBeUndefined();
    expect(cronProblem('61 * * * *', 'UTC', 0)).toMatch(/minute/);
    expect(cronProblem('0 0 31 2 *', 'UTC', 0)).toMatch(/never fires/);
  });
});
