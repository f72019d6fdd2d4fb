/**
 * What a schedule fires now, as a pure function of its record and the time: the turns to open (each with its text and
 * due time), what to report missed, and the record advanced past them. On time, a firing sends the schedule's text; a
 * firing that fell due while the agent could not fire it (down, asleep over its budget, a clock that jumped) follows
 * the schedule's catch-up policy, and every such span is reported, whatever the policy.
 */
import type { ScheduleCatchUp, ScheduleRecord } from '../../protocol/schedules.schema.js';
import { dueFirings, type DueFirings } from './schedule-timing.js';

/**
 * How late a firing may be and still count as on time (a timer that fired late, an event loop that stalled). Later
 * than this, the clock jumped (suspend, NTP) or the process could not run: that is downtime. Below the shortest
 * interval (one minute), so at most one firing of a schedule is ever on time at once.
 */
export const LATE_AFTER_MS = 30_000;

/** `on_time`: the timer or a beat found the schedule due; `catch_up`: after a boot or a wake, everything due was missed. */
export type FiringMode = 'on_time' | 'catch_up';

/** One turn to open. */
export interface PlannedFiring {
  dueAt: number;
  text: string;
}

/** Firings that fell due while they could not fire (`schedule.missed`). */
export interface MissedFirings {
  count: number;
  /** False when `count` is a lower bound (a frequent cron over a long downtime). */
  exact: boolean;
  firstDueAt: number;
  lastDueAt: number;
  policy: ScheduleCatchUp;
  /** How many turns the policy fired for them (skip 0, once 1, all up to maxCatchUp). */
  fired: number;
}

/** What to do now, and the record to store with it (in the same sync batch). */
export interface FiringPlan {
  firings: PlannedFiring[];
  missed: MissedFirings | null;
  record: ScheduleRecord;
}

/** The plan for `record` at `now`; null when nothing is due (or it is paused, or a finished one-shot). */
export function planFirings(
  record: ScheduleRecord,
  now: number,
  mode: FiringMode,
  lateAfterMs = LATE_AFTER_MS,
): FiringPlan | null {
  if (record.paused || record.nextAt === null) return null;
  const due = dueFirings(record, record.nextAt, now, record.maxCatchUp);
  if (due === null) return null;
  const onTime = mode === 'on_time' && due.count === 1 && now - due.firstDueAt <= lateAfterMs;
  const firings = onTime ? [{ dueAt: due.firstDueAt, text: record.text }] : catchUpFirings(record, due);
  const missed: MissedFirings | null = onTime
    ? null
    : {
        count: due.count,
        exact: due.exact,
        firstDueAt: due.firstDueAt,
        lastDueAt: due.lastDueAt,
        policy: record.catchUp,
        fired: firings.length,
      };
  return {
    firings,
    missed,
    record: {
      ...record,
      nextAt: due.nextAt,
      lastFiredAt: firings.length > 0 ? now : record.lastFiredAt,
      fired: record.fired + firings.length,
      missed: record.missed + (missed?.count ?? 0),
    },
  };
}

function catchUpFirings(record: ScheduleRecord, due: DueFirings): PlannedFiring[] {
  const iso = (ms: number): string => new Date(ms).toISOString();
  switch (record.catchUp) {
    case 'skip':
      return [];
    case 'once': {
      const times =
        due.count === 1
          ? 'once, at'
          : `${due.exact ? '' : 'at least '}${due.count} times, from ${iso(due.firstDueAt)} to`;
      const note = `[Catch-up: this schedule fell due ${times} ${iso(due.lastDueAt)} while the agent was down or asleep; this one firing stands for ${due.count === 1 ? 'it' : 'them all'}.]`;
      return [{ dueAt: due.lastDueAt, text: `${record.text}\n\n${note}` }];
    }
    case 'all': {
      const fired = due.recent;
      const dropped = due.count - fired.length;
      const skipped =
        dropped > 0
          ? `; ${due.exact ? '' : 'at least '}${dropped} older firings were skipped (maxCatchUp ${record.maxCatchUp})`
          : '';
      return fired.map((dueAt, i) => ({
        dueAt,
        text: `${record.text}\n\n[Catch-up ${i + 1} of ${fired.length}: due at ${iso(dueAt)}, fired late because the agent was down or asleep${skipped}.]`,
      }));
    }
  }
}
