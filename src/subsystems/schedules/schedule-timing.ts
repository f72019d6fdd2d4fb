/**
 * When a schedule is due: the first due time after an instant, and the firings due in a span. Pure functions of the
 * schedule's timing; cron expressions are evaluated by croner in the schedule's time zone, which handles daylight
 * saving (a fixed time in the spring-forward gap runs at the first valid time after it; a fixed time that occurs twice
 * in the fall-back runs once; interval patterns such as `*\/30 * * * *` skip the gap and run on both occurrences).
 */
import { Cron } from 'croner';
import type { ScheduleRecord } from '../../protocol/schedules.schema.js';

/** The fields that say when a schedule fires: exactly one of `cron`, `everyMs`, `at` (epoch ms), and the zone. */
export type ScheduleTiming = Pick<ScheduleRecord, 'cron' | 'everyMs' | 'at' | 'timezone'>;

/**
 * Most cron firings counted one by one in a span (croner takes about 0.1–0.3 ms per step): past this a long downtime
 * of a frequent cron is reported with `exact: false` (the count is a lower bound); the last firings are still exact.
 */
export const CRON_COUNT_CAP = 500;

// Compiled patterns by zone and expression: croner parses once, and a schedule fires many times.
const compiled = new Map<string, Cron>();
const COMPILED_MAX = 1024;

function cronOf(expression: string, timezone: string): Cron {
  const key = `${timezone}\u0000${expression}`;
  let cron = compiled.get(key);
  if (cron === undefined) {
    // No function: croner only computes times here, it never starts a timer of its own.
    cron = new Cron(expression, { timezone, mode: '5-part' });
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    compiled.set(key, cron);
  }
  return cron;
}

/** Why `expression` cannot be a schedule's cron in `timezone` (croner's reason, or one that never fires); undefined when it can. */
export function cronProblem(expression: string, timezone: string, now: number): string | undefined {
  try {
    const next = cronOf(expression, timezone).nextRun(new Date(now));
    return next === null ? 'the expression never fires (no date matches it)' : undefined;
  } catch (err) {
    return err instanceof Error ? err.message.replace(/^CronPattern: /, '') : String(err);
  }
}

/**
 * The first due time strictly after `afterMs`: the cron's next match, one interval later, or the one-shot's time
 * (null once it is at or before `afterMs`, and for a cron that never matches again).
 */
export function nextDueAfter(timing: ScheduleTiming, afterMs: number): number | null {
  if (timing.cron !== undefined)
    return cronOf(timing.cron, timing.timezone).nextRun(new Date(afterMs))?.getTime() ?? null;
  if (timing.everyMs !== undefined) return afterMs + timing.everyMs;
  if (timing.at !== undefined) return timing.at > afterMs ? timing.at : null;
  return null;
}

/** The firings due in a span: how many, the first and last, the newest few, and the next one after the span. */
export interface DueFirings {
  count: number;
  /** False when a cron's count stopped at `CRON_COUNT_CAP`: `count` is then a lower bound. */
  exact: boolean;
  firstDueAt: number;
  lastDueAt: number;
  /** The newest `keepRecent` due times (or all, when fewer), oldest first. */
  recent: number[];
  /** The first due time after the span; null when there is none (a one-shot). */
  nextAt: number | null;
}

/**
 * The firings due from `nextAt` (the schedule's next unfired time, itself due) up to and including `to`; null when
 * `nextAt` lies after `to`. Intervals are counted by arithmetic, so a long downtime of a short interval costs nothing.
 */
export function dueFirings(timing: ScheduleTiming, nextAt: number, to: number, keepRecent: number): DueFirings | null {
  if (nextAt > to) return null;
  const keep = Math.max(1, Math.floor(keepRecent));
  if (timing.cron !== undefined) return dueCronFirings(cronOf(timing.cron, timing.timezone), nextAt, to, keep);
  if (timing.everyMs !== undefined) {
    const every = timing.everyMs;
    const count = Math.floor((to - nextAt) / every) + 1;
    const lastDueAt = nextAt + (count - 1) * every;
    const kept = Math.min(keep, count);
    const recent = Array.from({ length: kept }, (_, i) => lastDueAt - (kept - 1 - i) * every);
    return { count, exact: true, firstDueAt: nextAt, lastDueAt, recent, nextAt: nextAt + count * every };
  }
  return { count: 1, exact: true, firstDueAt: nextAt, lastDueAt: nextAt, recent: [nextAt], nextAt: null };
}

function dueCronFirings(cron: Cron, nextAt: number, to: number, keep: number): DueFirings {
  const recent = [nextAt];
  let count = 1;
  let next = cron.nextRun(new Date(nextAt))?.getTime() ?? null;
  while (next !== null && next <= to && count < CRON_COUNT_CAP) {
    count += 1;
    recent.push(next);
    if (recent.length > keep) recent.shift();
    next = cron.nextRun(new Date(next))?.getTime() ?? null;
  }
  if (next === null || next > to)
    return { count, exact: true, firstDueAt: nextAt, lastDueAt: recent.at(-1)!, recent, nextAt: next };
  // Capped: the newest firings are read backwards from the span's end (croner's previousRuns is strictly before its date).
  const newest = cron
    .previousRuns(keep, new Date(to + 1))
    .map((date) => date.getTime())
    .filter((time) => time > recent.at(-1)!)
    .reverse();
  const tail = [...recent, ...newest].slice(-keep);
  return {
    count: count + newest.length,
    exact: false,
    firstDueAt: nextAt,
    lastDueAt: tail.at(-1)!,
    recent: tail,
    nextAt: cron.nextRun(new Date(to))?.getTime() ?? null,
  };
}
