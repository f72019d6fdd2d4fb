import { describe, expect, it } from 'vitest';
import type { ScheduleRecord } from '../../../src/protocol/schedules.schema.js';
import { LATE_AFTER_MS, planFirings } from '../../../src/subsystems/schedules/firing-plan.js';

const HOUR = 3_600_000;
const start = Date.parse('2026-06-01T00:00:00Z');

function hourly(overrides: Partial<ScheduleRecord> = {}): ScheduleRecord {
  return {
    id: 's-1',
    name: 'hourly',
    text: 'check the queue',
    everyMs: HOUR,
    timezone: 'UTC',
    catchUp: 'once',
    maxCatchUp: 10,
    paused: false,
    createdBy: 'operator',
    createdAt: start,
    nextAt: start + HOUR,
    lastFiredAt: null,
    fired: 0,
    missed: 0,
    ...overrides,
  };
}

describe('planFirings', () => {
  it('plans nothing before the next firing is due', () => {
    expect(planFirings(hourly(), start + HOUR - 1, 'on_time')).toBeNull();
  });

  it('fires the text on time and advances the record by one interval', () => {
    const plan = planFirings(hourly(), start + HOUR + 5, 'on_time')!;
    expect(plan.firings).toEqual([{ dueAt: start + HOUR, text: 'check the queue' }]);
    expect(plan.missed).toBeNull();
    expect(plan.record).toMatchObject({ nextAt: start + 2 * HOUR, lastFiredAt: start + HOUR + 5, fired: 1, missed: 0 });
  });

  it('treats a firing later than the tolerance as missed (a clock that jumped)', () => {
    const plan = planFirings(hourly(), start + HOUR + LATE_AFTER_MS + 1, 'on_time')!;
    expect(plan.missed).toMatchObject({ count: 1, policy: 'once', fired: 1 });
  });

  it('fires one turn saying how many were missed under "once"', () => {
    const now = start + 5 * HOUR + 10;
    const plan = planFirings(hourly(), now, 'catch_up')!;
    expect(plan.firings).toHaveLength(1);
    expect(plan.firings[0]!.dueAt).toBe(start + 5 * HOUR);
    expect(plan.firings[0]!.text).toMatch(
      /^check the queue\n\n\[Catch-up: this schedule fell due 5 times, from 2026-06-01T01:00:00.000Z to 2026-06-01T05:00:00.000Z/,
    );
    expect(plan.missed).toEqual({
      count: 5,
      exact: true,
      firstDueAt: start + HOUR,
      lastDueAt: start + 5 * HOUR,
      policy: 'once',
      fired: 1,
    });
    expect(plan.record).toMatchObject({ nextAt: start + 6 * HOUR, lastFiredAt: now, fired: 1, missed: 5 });
  });

  it('fires the newest maxCatchUp of the missed firings, oldest first, under "all"', () => {
    const plan = planFirings(hourly({ catchUp: 'all', maxCatchUp: 3 }), start + 5 * HOUR, 'catch_up')!;
    expect(plan.firings.map((f) => f.dueAt)).toEqual([start + 3 * HOUR, start + 4 * HOUR, start + 5 * HOUR]);
    expect(plan.firings[0]!.text).toMatch(
      /Catch-up 1 of 3: due at 2026-06-01T03:00:00.000Z.*2 older firings were skipped \(maxCatchUp 3\)/,
    );
    expect(plan.missed).toMatchObject({ count: 5, policy: 'all', fired: 3 });
  });

  it('fires nothing but still reports the missed span under "skip"', () => {
    const plan = planFirings(hourly({ catchUp: 'skip' }), start + 5 * HOUR, 'catch_up')!;
    expect(plan.firings).toEqual([]);
    expect(plan.missed).toMatchObject({ count: 5, policy: 'skip', fired: 0 });
    expect(plan.record).toMatchObject({ nextAt: start + 6 * HOUR, lastFiredAt: null, fired: 0, missed: 5 });
  });

  it('reports a single missed firing after a boot even when it is only just late', () => {
    const plan = planFirings(hourly(), start + HOUR + 1, 'catch_up')!;
    expect(plan.missed).toMatchObject({ count: 1 });
    expect(plan.firings[0]!.text).toMatch(/fell due once, at 2026-06-01T01:00:00.000Z/);
  });

  it('finishes a one-shot after its firing', () => {
    const at = start + HOUR;
    const plan = planFirings(hourly({ everyMs: undefined, at, nextAt: at }), at, 'on_time')!;
    expect(plan.firings).toHaveLength(1);
    expect(plan.record.nextAt).toBeNull();
    expect(planFirings(plan.record, at + HOUR, 'on_time')).toBeNull();
  });

  it('plans nothing for a paused schedule', () => {
    expect(planFirings(hourly({ paused: true }), start + 5 * HOUR, 'catch_up')).toBeNull();
  });
});
