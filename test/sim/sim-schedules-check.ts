/**
 * The schedules' invariant over a run: each due firing fires exactly once or is reported missed. The due times come
 * from each schedule's own timing (the product's pure `nextDueAfter`: the cron arithmetic has tests of its own, across
 * DST; what is checked here is that crashes, restarts, sleep and restores neither lose a firing nor repeat one).
 */
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import type { ScheduleView } from '../../src/protocol/schedules.schema.js';
import { nextDueAfter, type ScheduleTiming } from '../../src/subsystems/schedules/schedule-timing.js';
import type { Violation } from './sim-checker.js';
import type { SimHistory } from './sim-history.js';

/**
 * Due times this close to the end are not checked: a firing is taken at the beat after it falls due, and the run may
 * end before that beat. Every earlier one has had a live, awake agent to fire it (the drain tops up a sleeper).
 */
const END_SLACK_MS = 30_000;

type Fired = Extract<VigilEvent, { type: 'schedule.fired' }>;
type Missed = Extract<VigilEvent, { type: 'schedule.missed' }>;

/** No (schedule, due time) fired twice; every due time up to the end fired or inside a `schedule.missed` report. */
export function checkSchedules(history: SimHistory, all: Map<number, VigilEvent>): Violation[] {
  const violations: Violation[] = [];
  const fired = new Map<string, Fired[]>();
  const missed = new Map<string, Missed[]>();
  for (const event of all.values()) {
    if (event.type === 'schedule.fired') push(fired, `${event.scheduleId} ${event.dueAt}`, event);
    if (event.type === 'schedule.missed') push(missed, event.scheduleId, event);
  }
  for (const [key, firings] of fired) {
    if (firings.length > 1)
      violations.push({
        invariant: 'each due firing fires exactly once or is reported missed',
        detail: `schedule firing ${key} fired ${firings.length} times (seqs ${firings.map((e) => e.seq).join(', ')})`,
      });
  }
  if (history.schedulesListedAt === null) return violations;
  const checkUpTo = history.schedulesListedAt - END_SLACK_MS;
  for (const schedule of history.schedules) {
    const reports = missed.get(schedule.id) ?? [];
    for (const dueAt of dueTimes(schedule, checkUpTo)) {
      const iso = new Date(dueAt).toISOString();
      if (fired.has(`${schedule.id} ${iso}`)) continue;
      if (reports.some((r) => Date.parse(r.firstDueAt) <= dueAt && dueAt <= Date.parse(r.lastDueAt))) continue;
      violations.push({
        invariant: 'each due firing fires exactly once or is reported missed',
        detail: `schedule ${schedule.id} (${describe(schedule)}, catch-up ${schedule.catchUp}) was due at ${iso}: neither fired nor reported missed`,
      });
    }
  }
  return violations;
}

/** The times `schedule` fell due after it was added, up to `upTo`. */
function dueTimes(schedule: ScheduleView, upTo: number): number[] {
  const timing: ScheduleTiming = {
    timezone: schedule.timezone,
    ...(schedule.cron === undefined ? {} : { cron: schedule.cron }),
    ...(schedule.everyMs === undefined ? {} : { everyMs: schedule.everyMs }),
    ...(schedule.at === undefined ? {} : { at: Date.parse(schedule.at) }),
  };
  const times: number[] = [];
  for (let at = nextDueAfter(timing, Date.parse(schedule.createdAt)); at !== null && at <= upTo;) {
    times.push(at);
    at = nextDueAfter(timing, at);
  }
  return times;
}

function describe(schedule: ScheduleView): string {
  if (schedule.cron !== undefined) return `cron "${schedule.cron}" in ${schedule.timezone}`;
  if (schedule.everyMs !== undefined) return `every ${schedule.everyMs} ms`;
  return `once at ${schedule.at}`;
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
