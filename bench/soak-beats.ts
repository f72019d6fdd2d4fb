/**
 * The long run: the real runtime (offline thinker, on-disk LevelDB, checkpoints on) driven for a million beats on a
 * simulated clock, one beat per macrotask, with a message and a goal now and then so it also thinks; heap and RSS
 * are sampled after forced GCs, and growth past the stated bounds fails the run.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createRuntime } from '../src/runtime/create-runtime.js';
import { createSimulatedClock } from '../src/shared/clock.js';
import { vigilDbLocation } from '../src/subsystems/store/vigil-db.js';
import { internalsOf } from './bench-utils.js';

/** How long and how busy the run is. */
export interface BeatSoakOptions {
  dataDir: string;
  beats: number;
  /** Beats before the baseline sample: JIT, caches, LevelDB's memtable and block cache fill up first. */
  warmupBeats: number;
  checkpointIntervalBeats: number;
  checkpointMaxCount: number;
  /** A user message every N beats (the agent answers it: a paid think and two synced log writes). */
  messageEvery: number;
  /** A due goal every N beats (ten paid thinks until it is done). */
  goalEvery: number;
  /** A memory sample (after a forced GC) every N beats. */
  sampleEvery: number;
  /**
   * Every N beats, wait until the event journal and the checkpoint saves have written what they hold (0: never). The
   * run compresses days of beats into minutes; without this, real disk I/O falls behind simulated time and its
   * queues, not the runtime, fill the heap (see `npm run soak -- --only beats --unpaced`).
   */
  paceEvery: number;
  progress?: (line: string) => void;
}

export const DEFAULT_BEAT_SOAK: Omit<BeatSoakOptions, 'dataDir'> = {
  beats: 1_000_000,
  warmupBeats: 50_000,
  checkpointIntervalBeats: 1_000,
  checkpointMaxCount: 10,
  messageEvery: 5_000,
  goalEvery: 25_000,
  sampleEvery: 100_000,
  paceEvery: 1_000,
};

/**
 * The bounds, measured from the warm-up sample to the end, both after a forced GC. Everything the runtime keeps in
 * memory is bounded by design (7 working-memory items, at most 200 finished goals, the event journal and the
 * conversation live in LevelDB, metrics are fixed-size), so the live heap must come back to where it was: 8 MiB of
 * slack is less than 9 bytes per beat over the 950,000 measured beats, so leaking even one small object per beat
 * fails. RSS also holds LevelDB's native caches (8 MiB block cache, 4 MiB memtable, a second one while it is
 * compacted), V8's free-but-kept pages and malloc arenas, none of which a JS GC returns: 64 MiB.
 */
export const SOAK_BOUNDS = { heapGrowthBytes: 8 * 1024 * 1024, rssGrowthBytes: 64 * 1024 * 1024 } as const;

/** One memory sample. */
export interface MemorySample {
  beat: number;
  heapUsed: number;
  rss: number;
}

/** What the run measured. */
export interface BeatSoakReport {
  beats: number;
  seconds: number;
  beatsPerSecond: number;
  forcedGc: boolean;
  start: MemorySample;
  warm: MemorySample;
  end: MemorySample;
  samples: MemorySample[];
  /** Most checkpoint saves queued at once (sampled every beat). */
  maxPendingSaves: number;
  /** Longest wait for the journal and the saves to catch up at a pacing point, ms (0 when unpaced). */
  maxIoWaitMs: number;
  checkpoints: { created: number; stored: number; newestSizeBytes: number; maxSizeBytes: number; storedBytes: number };
  events: { total: number; byType: Record<string, number> };
  /** Warnings that must not happen in a healthy run (checkpoint.failed, actor.crashed, think.failed…). */
  troubles: Record<string, number>;
  spentUsd: number;
  dbBytes: number;
  problems: string[];
}

const TROUBLE = new Set([
  'checkpoint.failed',
  'checkpoint.corrupt',
  'actor.crashed',
  'think.failed',
  'heartbeat.circuit_open',
  'budget.ledger_failed',
]);
// 22:30 UTC, so the run crosses midnight: the daily budget rolls over once on the way.
const START = Date.parse('2026-03-01T22:30:00Z');
const BEAT_MS = 10;

const nextMacrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function sample(beat: number): MemorySample {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc !== undefined) {
    // Twice: the first pass can leave work (finalizers, weak refs) that the second collects.
    gc();
    gc();
  }
  const { heapUsed, rss } = process.memoryUsage();
  return { beat, heapUsed, rss };
}

async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? await directoryBytes(path) : (await stat(path)).size;
  }
  return total;
}

/** Runs the long run and checks the bounds; `problems` lists every broken one (empty: passed). */
export async function runBeatSoak(options: BeatSoakOptions): Promise<BeatSoakReport> {
  const clock = createSimulatedClock(START);
  const runtime = await createRuntime({
    clock,
    config: {
      dataDir: options.dataDir,
      thinker: 'offline',
      beatMs: BEAT_MS,
      beatMinMs: BEAT_MS,
      beatMaxMs: BEAT_MS,
      checkpointIntervalBeats: options.checkpointIntervalBeats,
      checkpointMaxCount: options.checkpointMaxCount,
      offlineCostUsd: 0.0001,
      dailyBudgetUsd: 1000,
    },
  });
  const byType: Record<string, number> = {};
  let total = 0;
  let created = 0;
  const failures: string[] = [];
  runtime.events$.subscribe((event) => {
    total += 1;
    if (event.type === 'think.failed' && failures.length < 5) failures.push(`${event.code}: ${event.reason}`);
    byType[event.type] = (byType[event.type] ?? 0) + 1;
    if (event.type === 'checkpoint.created') created += 1;
  });
  const manager = internalsOf(runtime).parts.checkpoints as unknown as { pendingSaves: number };
  const start = sample(0);
  runtime.start();
  const samples: MemorySample[] = [start];
  let warm = start;
  let maxPendingSaves = 0;
  let nextMessage = options.messageEvery;
  let nextGoal = options.goalEvery;
  let nextSample = options.warmupBeats;
  let nextPace = options.paceEvery > 0 ? options.paceEvery : Number.POSITIVE_INFINITY;
  let maxIoWaitMs = 0;
  const { journal } = internalsOf(runtime).parts;
  const sends = new Set<Promise<unknown>>();
  let failedSends = 0;
  const began = performance.now();
  let measuredFrom = began;
  runtime.addGoal({ title: 'Keep the log tidy', priority: 4 });
  while (runtime.beatCount < options.beats) {
    // One beat per macrotask, as in real time: LevelDB callbacks, zlib and the journal's batched writes run between.
    // Time moves only while the heartbeat sleeps: a think waiting on a synced write takes no simulated time.
    if (runtime.status().phase === 'sleep') clock.increment(BEAT_MS);
    await nextMacrotask();
    const beat = runtime.beatCount;
    maxPendingSaves = Math.max(maxPendingSaves, manager.pendingSaves);
    if (beat >= nextMessage) {
      nextMessage += options.messageEvery;
      const send: Promise<unknown> = runtime
        .send({ text: `Status check at beat ${beat}: how are the chores going?`, from: 'soak' })
        .catch(() => (failedSends += 1))
        .finally(() => sends.delete(send));
      sends.add(send);
    }
    if (beat >= nextGoal) {
      nextGoal += options.goalEvery;
      runtime.addGoal({ title: `Soak chore ${beat}`, priority: 6, dueAt: new Date(clock.now() - 1000).toISOString() });
    }
    if (beat >= nextPace) {
      nextPace += options.paceEvery;
      const waitStarted = performance.now();
      await journal.flush();
      await runtime.flush();
      maxIoWaitMs = Math.max(maxIoWaitMs, performance.now() - waitStarted);
    }
    if (beat >= nextSample) {
      const taken = sample(beat);
      samples.push(taken);
      if (nextSample === options.warmupBeats) {
        warm = taken;
        measuredFrom = performance.now();
      }
      options.progress?.(
        `  beat ${beat.toLocaleString('en')}: heap ${mib(taken.heapUsed)} MiB, rss ${mib(taken.rss)} MiB, ${total.toLocaleString('en')} events`,
      );
      nextSample = nextSample === options.warmupBeats ? options.sampleEvery : nextSample + options.sampleEvery;
    }
  }
  const seconds = (performance.now() - measuredFrom) / 1000;
  await Promise.all([...sends]);
  await runtime.flush();
  const end = sample(runtime.beatCount);
  samples.push(end);
  const stored = await runtime.listCheckpoints();
  const spentUsd = runtime.budgetStatus().spentTodayUsd;
  options.progress?.(`  simulated time at the end: ${new Date(clock.now()).toISOString()}`);
  const beats = runtime.beatCount;
  await runtime.stop();
  const dbBytes = await directoryBytes(vigilDbLocation(options.dataDir));
  const troubles = Object.fromEntries(Object.entries(byType).filter(([type]) => TROUBLE.has(type)));
  const problems: string[] = [];
  if (end.heapUsed - warm.heapUsed > SOAK_BOUNDS.heapGrowthBytes) {
    problems.push(
      `heap grew ${mib(end.heapUsed - warm.heapUsed)} MiB after warm-up, bound ${mib(SOAK_BOUNDS.heapGrowthBytes)} MiB`,
    );
  }
  if (end.rss - warm.rss > SOAK_BOUNDS.rssGrowthBytes) {
    problems.push(
      `RSS grew ${mib(end.rss - warm.rss)} MiB after warm-up, bound ${mib(SOAK_BOUNDS.rssGrowthBytes)} MiB`,
    );
  }
  if (stored.length > options.checkpointMaxCount)
    problems.push(`${stored.length} checkpoints stored, max ${options.checkpointMaxCount}`);
  if (Object.keys(troubles).length > 0)
    problems.push(`warning events: ${JSON.stringify(troubles)} ${failures.join(' | ')}`);
  if (failedSends > 0) problems.push(`${failedSends} messages were refused`);
  if ((globalThis as { gc?: unknown }).gc === undefined)
    problems.push('no forced GC (run node with --expose-gc): the heap figures are not comparable');
  return {
    beats,
    seconds,
    beatsPerSecond: (beats - warm.beat) / seconds,
    forcedGc: (globalThis as { gc?: unknown }).gc !== undefined,
    start,
    warm,
    end,
    samples,
    maxPendingSaves,
    maxIoWaitMs,
    checkpoints: {
      created,
      stored: stored.length,
      newestSizeBytes: stored[0]?.sizeBytes ?? 0,
      maxSizeBytes: Math.max(0, ...stored.map((c) => c.sizeBytes)),
      storedBytes: stored.reduce((sum, c) => sum + c.sizeBytes, 0),
    },
    events: { total, byType },
    troubles,
    spentUsd,
    dbBytes,
    problems,
  };
}

/** Bytes as MiB with one decimal. */
export function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
