/**
 * Bench 14: what schedules cost an idle agent. Two runtimes on simulated clocks, one with 1,000 schedules (cron in four
 * zones, intervals, one-shots; none due within the run) and one with none, driven beat for beat in alternating
 * repetitions; and the time to find the next due time among the 1,000 (what the runner does after every change or
 * firing), against the absolute 1 ms.
 */
import { createSimulatedClock } from '../src/shared/clock.js';
import { median, internalsOf, withTempDir } from './bench-utils.js';
import { drive, START, startIdleRuntime } from './idle-beat.bench.js';
import { pairedRatioCheck, ratioCheck, ratioInfo, sanity, type BenchOutcome, type Measure } from './report.js';

/** How much to drive and how many schedules. */
export interface SchedulesBenchOptions {
  schedules: number;
  warmupBeats: number;
  beatsPerRep: number;
  reps: number;
  /** Calls of the next-due lookup timed (the median call is reported). */
  lookups: number;
}

export const DEFAULT_SCHEDULES_BENCH_OPTIONS: SchedulesBenchOptions = {
  schedules: 1_000,
  warmupBeats: 2_000,
  beatsPerRep: 2_000,
  reps: 11,
  lookups: 2_000,
};

/** The target for finding the next due time, in ms. */
const NEXT_DUE_TARGET_MS = 1;
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo'];
const DAY_MS = 86_400_000;

/** The `i`th schedule: a yearly cron, a 30-day interval or a one-shot months ahead, none due within the run. */
function scheduleParams(i: number): Record<string, unknown> {
  const text = `Scheduled check ${i}.`;
  const name = `bench ${i}`;
  switch (i % 3) {
    case 0:
      return { name, text, cron: `${i % 60} ${i % 24} 1 1 *`, timezone: ZONES[i % ZONES.length] };
    case 1:
      return { name, text, everyMs: 30 * DAY_MS + i * 60_000 };
    default:
      return { name, text, at: new Date(START + 200 * DAY_MS + i * 60_000).toISOString() };
  }
}

/** Runs bench 14. */
export async function schedulesBench(
  options: SchedulesBenchOptions = DEFAULT_SCHEDULES_BENCH_OPTIONS,
): Promise<BenchOutcome> {
  return withTempDir('schedules', async (root) => {
    const noneClock = createSimulatedClock(START);
    const manyClock = createSimulatedClock(START);
    const none = await startIdleRuntime(`${root}/none`, noneClock);
    const many = await startIdleRuntime(`${root}/many`, manyClock);
    try {
      for (let i = 0; i < options.schedules; i += 1) await many.addSchedule(scheduleParams(i));
      none.start();
      many.start();
      await drive(noneClock, options.warmupBeats);
      await drive(manyClock, options.warmupBeats);
      const noneUs: number[] = [];
      const manyUs: number[] = [];
      const perBeatUs = (ms: number): number => (ms / options.beatsPerRep) * 1000;
      // Alternating repetitions share whatever drift the machine has; which one goes first alternates too.
      for (let rep = 0; rep < options.reps; rep += 1) {
        const order = rep % 2 === 0 ? ([none, many] as const) : ([many, none] as const);
        for (const runtime of order) {
          const clock = runtime === none ? noneClock : manyClock;
          const ms = (await drive(clock, options.beatsPerRep)).totalMs;
          (runtime === none ? noneUs : manyUs).push(perBeatUs(ms));
        }
      }
      // The lookup the runner makes after every change and firing: the earliest due time and the active count.
      const store = internalsOf(many).parts.schedules;
      let earliest: number | null = null;
      const lookupMs: number[] = [];
      for (let i = 0; i < options.lookups; i += 1) {
        const started = performance.now();
        earliest = store.earliestDue();
        store.activeCount();
        lookupMs.push(performance.now() - started);
      }
      const expected = options.warmupBeats + options.beatsPerRep * options.reps;
      const ms = (value: number, what: string): Measure => ({ value, unit: 'ms', what });
      const nextDue = median(lookupMs);
      const listed = many.listSchedules();
      return {
        id: 'schedules',
        title: `14. Schedules: an idle beat with ${options.schedules} schedules, and finding the next due time`,
        checks: [
          pairedRatioCheck(
            'schedules.idle-beat',
            `idle beat: ${options.schedules} schedules / none`,
            { values: manyUs, unit: 'µs/beat', what: `${options.schedules} schedules` },
            { values: noneUs, unit: 'µs/beat', what: 'no schedule' },
            '<=',
            1.1,
          ),
          ratioCheck(
            'schedules.next-due',
            `next due time among ${options.schedules}, median / target`,
            ms(nextDue, 'lookup'),
            ms(NEXT_DUE_TARGET_MS, 'target'),
            '<',
            1,
          ),
          ratioInfo(
            'schedules.next-due-per-beat',
            'next-due lookup / an idle beat (with none)',
            { value: nextDue * 1000, unit: 'µs', what: 'lookup' },
            { value: median(noneUs), unit: 'µs', what: 'idle beat' },
          ),
        ],
        details: [
          { label: `with ${options.schedules} schedules, median repetition`, value: median(manyUs), unit: 'µs/beat' },
          { label: 'with none, median repetition', value: median(noneUs), unit: 'µs/beat' },
          { label: 'next-due lookup, median', value: nextDue * 1000, unit: 'µs' },
          { label: 'next-due lookup, slowest', value: Math.max(...lookupMs) * 1000, unit: 'µs' },
        ],
        sanity: [
          sanity(
            'both runtimes beat N times',
            none.status().beatCount === expected && many.status().beatCount === expected,
            `beatCount ${none.status().beatCount} and ${many.status().beatCount}, expected ${expected}`,
          ),
          sanity(
            'every schedule is stored and active',
            listed.length === options.schedules && store.activeCount() === options.schedules,
            `${listed.length} listed, ${store.activeCount()} active`,
          ),
          sanity(
            'nothing fired during the run',
            listed.every((schedule) => schedule.fired === 0 && schedule.missed === 0),
            `${listed.filter((schedule) => schedule.fired > 0).length} fired`,
          ),
          sanity(
            'the next due time is the earliest one listed',
            earliest === Math.min(...listed.map((schedule) => Date.parse(schedule.nextAt ?? ''))),
            `earliestDue ${earliest === null ? 'null' : new Date(earliest).toISOString()}`,
          ),
        ],
        notes: [
          'None of the schedules falls due within the run: this is their standing cost. Each beat is one macrotask on both sides, as in bench 1.',
        ],
      };
    } finally {
      await none.stop();
      await many.stop();
    }
  });
}
