/**
 * "Age does not cost": a simulated year of one agent (50 messages, about 10 tool calls and 2 restarts a day, one of
 * them a crash, default retention) on an on-disk data dir. A copy of the data dir is kept after the first week; at
 * the end the young copy and the year-old dir are measured in turns, in the same session (boot, a think's prompt
 * build, memory.search, a checkpoint save), so the ratios do not drift with the machine's load. The data dir must
 * stay under YEAR_DATA_DIR_BOUND_BYTES and the heap flat: a runtime on the aged dir holds no more than one on a fresh
 * dir with the same memories, and the process that hosted the year's incarnations keeps nothing of them.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VigilConfig } from '../../src/config.js';
import { DEFAULT_MEMORY_MAX_COUNT } from '../../src/subsystems/memory/memory-retention.js';
import { SUBLEVELS } from '../../src/subsystems/store/vigil-db.js';
import { words } from './sim-model.js';
import { heapAfterGc, longTermMemoryBytes, runtimeHeap } from './sim-year-heap.js';
import { mb, median, reportRatios, reportYear, type Costs, type Probes } from './sim-year-report.js';
import { copyLongTermMemory, lastEventAt, sublevelSizes, YearWorld } from './sim-year-world.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Searches timed together in each probe (their mean is the probe's figure). */
const SEARCHES_PER_PROBE = 200;
/** Paired rounds of the final measurement (young dir, old dir, alternately). */
const PROBE_ROUNDS = 9;
/**
 * Checkpoint saves timed in each probe, after one not timed (their median is the probe's figure). A runtime's first
 * save cost 16–23 ms on a week-old and on a year-old dir alike (its first compression and sync batch), the next ones
 * 0.6–0.9 ms with the first few of those still warming: one timed save was mostly that noise (0.86x and 1.31x in two
 * year runs of the same code).
 */
const SAVES_PER_PROBE = 8;
/** Paired rounds of the runtime heap measurement (aged dir, twin). */
const HEAP_ROUNDS = 3;

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
  const twinDir = join(root, 'twin');
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
    let youngAt = startAt;
    for (let day = 0; day < days; day += 1) {
      await liveDay(year, startAt + day * DAY_MS, perDay);
      maxBytes = Math.max(maxBytes, year.sizeBytes());
      if (day % 7 !== 6) continue;
      heap.push(heapAfterGc());
      memoryCounts.push((await year.longTermMemories()).length);
      if (day === 6) {
        // The young copy: a clean stop, the files copied, and the agent goes on (a restart like any other).
        await year.stop();
        cpSync(oldDir, youngDir, { recursive: true });
        youngAt = year.world.now();
        await year.boot();
      }
      log(
        `day ${day + 1}: ${year.thinks} thinks, data dir ${mb(year.sizeBytes())}, heap ${mb(heap[heap.length - 1]!)}, ${((performance.now() - started) / 60_000).toFixed(1)} min`,
      );
    }
    const oldAt = year.world.now();
    await year.stop();
    const sizes = [...(await sublevelSizes(oldDir))].sort(([, a], [, b]) => b.bytes - a.bytes);
    log(
      `live data after the year: ${sizes.map(([name, size]) => `${name} ${size.keys} keys ${mb(size.bytes)}`).join(', ')}`,
    );
    // Before the probes, which add memories of their own.
    const memoryGrowth = (await longTermMemoryBytes(oldDir)) - (await longTermMemoryBytes(youngDir));
    await copyLongTermMemory(oldDir, twinDir);
    const young: Costs[] = [];
    const old: Costs[] = [];
    const twin: Costs[] = [];
    for (let round = 0; round < PROBE_ROUNDS; round += 1) {
      young.push(await probe(youngDir, youngAt + (round + 1) * HOUR_MS, seed + round, overrides));
      old.push(await probe(oldDir, oldAt + (round + 1) * HOUR_MS, seed + round, overrides));
      twin.push(await probe(twinDir, oldAt + (round + 1) * HOUR_MS, seed + round, overrides));
    }
    const held = await heldHeaps(oldDir, twinDir, oldAt + (PROBE_ROUNDS + 1) * HOUR_MS, seed, overrides);
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
  const [youngDir, oldDir] = [join(root, 'week'), join(root, 'year')];
  const [youngAt, oldAt] = [await lastEventAt(youngDir), await lastEventAt(oldDir)];
  const memories = [await memoryCount(youngDir), await memoryCount(oldDir)] as const;
  const twinRoot = mkdtempSync(join(tmpdir(), 'vigil-year-twin-'));
  const twinDir = join(twinRoot, 'twin');
  await copyLongTermMemory(oldDir, twinDir);
  const young: Costs[] = [];
  const old: Costs[] = [];
  const twin: Costs[] = [];
  try {
    // A round not counted first: a run's probes come after days of the same code, which is warm by then.
    for (let round = -1; round < PROBE_ROUNDS; round += 1) {
      const costs = [
        await probe(youngDir, youngAt + (round + 2) * HOUR_MS, seed + round),
        await probe(oldDir, oldAt + (round + 2) * HOUR_MS, seed + round),
        await probe(twinDir, oldAt + (round + 2) * HOUR_MS, seed + round),
      ] as const;
      if (round >= 0) [young[round], old[round], twin[round]] = costs;
    }
    const held = await heldHeaps(oldDir, twinDir, oldAt + (PROBE_ROUNDS + 2) * HOUR_MS, seed);
    log(`probed ${root} again (no days simulated); ${PROBE_ROUNDS} paired rounds, medians:`);
    return reportRatios(log, { young, old, twin, held, memories, bound: DEFAULT_MEMORY_MAX_COUNT });
  } finally {
    removeRun(twinRoot, log);
  }
}

/** The heap a runtime holds on the aged dir and on its twin, HEAP_ROUNDS times each, alternately. */
async function heldHeaps(
  oldDir: string,
  twinDir: string,
  at: number,
  seed: number,
  overrides: Partial<VigilConfig> = {},
): Promise<Probes['held']> {
  const held = { old: [] as number[], twin: [] as number[] };
  for (let round = 0; round < HEAP_ROUNDS; round += 1) {
    const start = at + round * DAY_MS;
    held.old.push(await runtimeHeap(oldDir, start, seed + round, overrides));
    held.twin.push(await runtimeHeap(twinDir, start, seed + round, overrides));
  }
  return held;
}

/** How many long-term memories the data dir `dir` (not open elsewhere) holds. */
async function memoryCount(dir: string): Promise<number> {
  return (await sublevelSizes(dir)).get(SUBLEVELS.longTermMemory)?.keys ?? 0;
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

/** Boots on `dir` and measures a boot, memory.search, a think's prompt build and a checkpoint save; stops again. */
async function probe(dir: string, at: number, seed: number, overrides: Partial<VigilConfig> = {}): Promise<Costs> {
  const world = new YearWorld(dir, at, seed, overrides);
  const bootMs = await world.boot();
  const { runtime } = world;
  // The index is built in the background after a boot; the first search waits for it, the timed ones do not.
  await runtime.searchMemory({ query: words(world.rng, 2), limit: 5 });
  // A batch of searches timed together: one takes ~0.1 ms, where a single timing is mostly the timer's and the
  // scheduler's noise. The same seed asks the same queries of both dirs.
  const queries = Array.from({ length: SEARCHES_PER_PROBE }, () => words(world.rng, 2));
  const searchStarted = performance.now();
  for (const query of queries) await runtime.searchMemory({ query, limit: 5 });
  const searchMs = (performance.now() - searchStarted) / queries.length;
  world.send('What did we talk about last week?');
  for (let i = 0; world.promptMs.length === 0 && i < 1_000; i += 1) await world.tick();
  const saves = world.checkpointMs.length + 1;
  for (let save = 0; save <= SAVES_PER_PROBE; save += 1) {
    let created = false;
    void runtime.createCheckpoint().then(() => (created = true));
    for (let i = 0; !created && i < 1_000; i += 1) await world.tick();
  }
  const costs = {
    bootMs,
    promptMs: world.promptMs[0] ?? Number.NaN,
    searchMs,
    checkpointMs: median(world.checkpointMs.slice(saves)),
  };
  await world.stop();
  return costs;
}
