/**
 * The simulated year's measurement: the first week's data dir, the aged one and its twin (a fresh dir holding the aged
 * one's memories) probed in turns (a boot, a think's prompt build, memory.search, a checkpoint save), then the heap a
 * runtime holds on the aged dir and on the twin.
 *
 * A year's run measures in a process started for it (`measureInFreshProcess`), as a daemon boots in a process of its
 * own, not in one that has hosted a year of simulation. Measured in the process that had run the year, the boot's
 * ratio went from 1.12 to 1.64 between runs of the same code, while the same dirs probed in a fresh process gave
 * 1.10–1.12 each time: the boot of the aged dir reads more and keeps more of it (a full conversation window), so a
 * scavenge falls inside it and not inside the first week's, and what such a collection costs, and when it comes, depends
 * on the heap the process already holds (with 300 MB of unrelated live objects held in a fresh process, 1.23).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { VigilConfig } from '../../src/config.js';
import { SUBLEVELS } from '../../src/subsystems/store/vigil-db.js';
import { words } from './sim-model.js';
import { runtimeHeap } from './sim-year-heap.js';
import { median, type Costs, type Probes } from './sim-year-report.js';
import { copyMemories, lastEventAt, sublevelSizes, YearWorld } from './sim-year-world.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Searches timed together in each probe (their mean is the probe's figure). */
const SEARCHES_PER_PROBE = 200;
/**
 * Paired rounds of the measurement (first week, aged dir, twin, in turns), after one not counted. With nine, the
 * medians of the same pair moved by ±0.06 from one measurement to the next (the boot's ratio 1.09–1.22, the prompt
 * build's 1.04–1.19); with 21, by ±0.04 (boot 1.01–1.08, prompt build against the twin 1.01 three times), in ~30 s.
 */
export const PROBE_ROUNDS = 21;
/**
 * Checkpoint saves timed in each probe, after one not timed (their median is the probe's figure). A runtime's first
 * save cost 16–23 ms on a week-old and on a year-old dir alike (its first compression and sync batch), the next ones
 * 0.6–0.9 ms with the first few of those still warming: one timed save was mostly that noise (0.86x and 1.31x in two
 * year runs of the same code).
 */
const SAVES_PER_PROBE = 8;
/** Thinks whose prompt build each probe times (their median is the probe's figure), and the time between them. */
const PROMPTS_PER_PROBE = 5;
const MESSAGE_GAP_MS = 10 * 60_000;
/** Paired rounds of the runtime heap measurement (aged dir, twin). */
const HEAP_ROUNDS = 3;

/** What the measurement of a year's dirs found (JSON between the processes: a NaN travels as null). */
const finite = z
  .number()
  .nullable()
  .transform((value) => value ?? Number.NaN);
const CostsSchema = z.object({ bootMs: finite, promptMs: finite, searchMs: finite, checkpointMs: finite });
const MeasuredSchema = z.object({
  young: z.array(CostsSchema),
  old: z.array(CostsSchema),
  twin: z.array(CostsSchema),
  held: z.object({ old: z.array(z.number()), twin: z.array(z.number()) }),
  memories: z.tuple([z.number(), z.number()]),
});
export type Measured = Omit<Probes, 'bound'>;

/**
 * Measures the dirs a year left under `root` (`week`, the first week's copy, and `year`, the whole run's, neither
 * open elsewhere) in this process; the twin is made for it and removed after.
 */
export async function measureKept(root: string, seed: number, overrides: Partial<VigilConfig> = {}): Promise<Measured> {
  const [youngDir, oldDir] = [join(root, 'week'), join(root, 'year')];
  const [youngAt, oldAt] = [await lastEventAt(youngDir), await lastEventAt(oldDir)];
  // Before the probes, which add memories of their own.
  const memories = [await memoryCount(youngDir), await memoryCount(oldDir)] as const;
  const twinRoot = mkdtempSync(join(tmpdir(), 'vigil-year-twin-'));
  const twinDir = join(twinRoot, 'twin');
  try {
    await copyMemories(oldDir, twinDir);
    const young: Costs[] = [];
    const old: Costs[] = [];
    const twin: Costs[] = [];
    // A round not counted first: a process's first boot compiles what the next ones reuse.
    for (let round = -1; round < PROBE_ROUNDS; round += 1) {
      const costs = [
        await probe(youngDir, youngAt + (round + 2) * HOUR_MS, seed + round, overrides),
        await probe(oldDir, oldAt + (round + 2) * HOUR_MS, seed + round, overrides),
        await probe(twinDir, oldAt + (round + 2) * HOUR_MS, seed + round, overrides),
      ] as const;
      if (round >= 0) [young[round], old[round], twin[round]] = costs;
    }
    const held = await heldHeaps(oldDir, twinDir, oldAt + (PROBE_ROUNDS + 2) * HOUR_MS, seed, overrides);
    return { young, old, twin, held, memories };
  } finally {
    rmSync(twinRoot, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** `measureKept` in a process started for it (the same Node.js and flags as this one), through `npm run sim`'s entry. */
export async function measureInFreshProcess(root: string, seed: number, memoryMaxCount?: number): Promise<Measured> {
  const cli = fileURLToPath(new URL('./sim-cli.ts', import.meta.url));
  const args = [...process.execArgv, cli, '--year', '--measure', root, '--seed', String(seed)];
  if (memoryMaxCount !== undefined) args.push('--memory-max', String(memoryMaxCount));
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`the year's measurement process exited ${code}`);
  const last = stdout.trim().split('\n').pop() ?? '';
  return MeasuredSchema.parse(JSON.parse(last));
}

/** The heap a runtime holds on the aged dir and on its twin, HEAP_ROUNDS times each, alternately. */
async function heldHeaps(
  oldDir: string,
  twinDir: string,
  at: number,
  seed: number,
  overrides: Partial<VigilConfig>,
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

/** Boots on `dir` and measures a boot, memory.search, a think's prompt build and a checkpoint save; stops again. */
async function probe(dir: string, at: number, seed: number, overrides: Partial<VigilConfig>): Promise<Costs> {
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
  // Several thinks, each answered before the next message: one prompt build (~1.4 ms) timed once per probe gave the
  // same code 1.02x and 1.17x in two runs.
  for (let message = 0; message < PROMPTS_PER_PROBE; message += 1) {
    world.send(words(world.rng, world.rng.int(3, 60)));
    await world.runUntil(world.world.now() + MESSAGE_GAP_MS);
  }
  const saves = world.checkpointMs.length + 1;
  for (let save = 0; save <= SAVES_PER_PROBE; save += 1) {
    let created = false;
    void runtime.createCheckpoint().then(() => (created = true));
    for (let i = 0; !created && i < 1_000; i += 1) await world.tick();
  }
  const costs = {
    bootMs,
    promptMs: median(world.promptMs),
    searchMs,
    checkpointMs: median(world.checkpointMs.slice(saves)),
  };
  await world.stop();
  return costs;
}
