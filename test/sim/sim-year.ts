/**
 * "Age does not cost": a simulated year of one agent (50 messages, about 10 tool calls and 2 restarts a day, one of
 * them a crash, default retention) on an on-disk data dir. A copy of the data dir is kept after the first week; at
 * the end the young copy and the year-old dir are measured in turns, in a fresh process started for it
 * (sim-year-measure.ts: a boot, a think's prompt build, memory.search, a checkpoint save), so the ratios do not
 * drift with the machine's load nor with what a year of simulation left in this process. The data dir must
 * stay under YEAR_DATA_DIR_BOUND_BYTES and the heap flat: a runtime on the aged dir holds no more than one on a fresh
 * dir with the same memories, and the process that hosted the year's incarnations keeps nothing of them.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VigilConfig } from '../../src/config.js';
import { DEFAULT_MEMORY_MAX_COUNT } from '../../src/subsystems/memory/memory-retention.js';
import { words } from './sim-model.js';
import { conversationIndexBytes, heapAfterGc, longTermMemoryBytes } from './sim-year-heap.js';
import { measureInFreshProcess, measureKept, PROBE_ROUNDS } from './sim-year-measure.js';
import { mb, reportRatios, reportYear } from './sim-year-report.js';
import { sublevelSizes, YearWorld } from './sim-year-world.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** Options of the year run. */
export interface YearOptions {
  days?: number;
  messagesPerDay?: number;
  seed?: number;
  /** Leaves the data dirs (the first week's copy and the whole run's) for profiling, and says where. */
  keep?: boolean;
  /** VIGIL_MEMORY_MAX_COUNT for the run (default: the default, which a year of 50 messages a day does not reach). */
  memoryMaxCount?: number;
  log: (line: string) => void;
}

/** Runs the year and reports; true when every ratio and bound holds. */
export async function runYear(options: YearOptions): Promise<boolean> {
  const { log } = options;
  const days = options.days ?? 365;
  const perDay = options.messagesPerDay ?? 50;
  const seed = options.seed ?? 1;
  const root = mkdtempSync(join(tmpdir(), 'vigil-year-'));
  const oldDir = join(root, 'year');
  const youngDir = join(root, 'week');
  const startAt = Date.parse('2026-01-05T00:00:00Z');
  const started = performance.now();
  const overrides: Partial<VigilConfig> =
    options.memoryMaxCount === undefined ? {} : { memoryMaxCount: options.memoryMaxCount };
  try {
    const year = new YearWorld(oldDir, startAt, seed, overrides);
    await year.boot();
    const heap: number[] = [];
    // How many long-term memories there were at each heap sample (what long-term memory holds in RAM is live data, not
    // a leak: measured at the end, on the first week's dir and the whole run's, and set apart).
    const memoryCounts: number[] = [];
    let maxBytes = 0;
    for (let day = 0; day < days; day += 1) {
      await liveDay(year, startAt + day * DAY_MS, perDay);
      maxBytes = Math.max(maxBytes, year.sizeBytes());
      if (day % 7 !== 6) continue;
      heap.push(heapAfterGc());
      memoryCounts.push(await year.longTermMemoryCount());
      if (day === 6) {
        // The young copy: a clean stop, the files copied, and the agent goes on (a restart like any other).
        await year.stop();
        cpSync(oldDir, youngDir, { recursive: true });
        await year.boot();
      }
      log(
        `day ${day + 1}: ${year.thinks} thinks, data dir ${mb(year.sizeBytes())}, heap ${mb(heap[heap.length - 1]!)}, ${((performance.now() - started) / 60_000).toFixed(1)} min`,
      );
    }
    await year.stop();
    const sizes = [...(await sublevelSizes(oldDir))].sort(([, a], [, b]) => b.bytes - a.bytes);
    log(
      `live data after the year: ${sizes.map(([name, size]) => `${name} ${size.keys} keys ${mb(size.bytes)}`).join(', ')}`,
    );
    // Before the probes, which add memories of their own.
    const memoryGrowth = (await longTermMemoryBytes(oldDir)) - (await longTermMemoryBytes(youngDir));
    const conversationGrowth = (await conversationIndexBytes(oldDir)) - (await conversationIndexBytes(youngDir));
    log('measuring the first week and the year in a fresh process');
    const { young, old, twin, held } = await measureInFreshProcess(root, seed, options.memoryMaxCount);
    return reportYear({
      rounds: PROBE_ROUNDS,
      log,
      days,
      young,
      old,
      twin,
      held,
      bound: options.memoryMaxCount ?? DEFAULT_MEMORY_MAX_COUNT,
      heap,
      memories: memoryCounts,
      memoryGrowth,
      conversationGrowth,
      maxBytes,
      finalBytes: year.sizeBytes(),
      thinks: year.thinks,
      minutes: (performance.now() - started) / 60_000,
    });
  } finally {
    if (options.keep === true) log(`data dirs kept: ${youngDir} (the first week), ${oldDir} (the whole run)`);
    else removeRun(root, log);
  }
}

/**
 * Measures the two data dirs a `keep` run left under `root` again (its young and old copies), as the end of a run
 * does, without simulating the days: for profiling a change to what the probes time. True when every ratio holds.
 */
export async function probeKept(root: string, log: (line: string) => void, seed = 1): Promise<boolean> {
  const measured = await measureKept(root, seed);
  log(`probed ${root} again (no days simulated); ${PROBE_ROUNDS} paired rounds, medians:`);
  return reportRatios(log, { ...measured, bound: DEFAULT_MEMORY_MAX_COUNT });
}

/** Removes the run's dirs. A failed run may leave a LevelDB writing its last files: its error, not this one, is the one to see. */
function removeRun(root: string, log: (line: string) => void): void {
  try {
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    log(`could not remove ${root}`);
  }
}

/** One day: 50 messages between 08:00 and 22:00, a clean restart at 03:00 and a crash at 15:00. */
async function liveDay(year: YearWorld, dayStart: number, perDay: number): Promise<void> {
  const { rng } = year;
  const plan: { at: number; act: () => Promise<void> | void }[] = [
    { at: dayStart + 3 * HOUR_MS, act: async () => void (await year.stop(), await year.boot()) },
    { at: dayStart + 15 * HOUR_MS, act: async () => void (await year.crash(), await year.boot()) },
  ];
  for (let i = 0; i < perDay; i += 1) {
    const text = words(rng, rng.int(3, 60));
    plan.push({ at: dayStart + 8 * HOUR_MS + rng.int(0, 14 * HOUR_MS), act: () => year.send(text) });
  }
  plan.sort((a, b) => a.at - b.at);
  for (const step of plan) {
    await year.runUntil(step.at);
    await step.act();
  }
  await year.runUntil(dayStart + DAY_MS);
}
