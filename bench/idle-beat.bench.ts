/** Bench 1: the cost of an idle beat of the real runtime against a bare XState heartbeat, both on a simulated clock. */
import { createRuntime } from '../src/runtime/create-runtime.js';
import type { Runtime } from '../src/runtime/runtime.js';
import { createSimulatedClock } from '../src/shared/clock.js';
import { startBareHeartbeat } from './bare-heartbeat.js';
import { median, withTempDir, yieldToLoop } from './bench-utils.js';
import { CountingThinker } from './counting-thinker.js';
import { pairedRatioCheck, ratioInfo, sanity, type BenchOutcome } from './report.js';

/** How long to drive each heartbeat. */
export interface IdleBeatOptions {
  warmupBeats: number;
  /** Measured beats per repetition; the result is the median repetition. */
  beatsPerRep: number;
  reps: number;
}

/**
 * The warm-up runs the runtime to its steady state, the one a daemon is in after its first hours: past the event
 * journal's cap (10,000 events, one per idle beat), so every measured repetition prunes as a long-running daemon does,
 * and past the first LevelDB memtable flushes and V8's tiering of the beat's code. Over the first ~12,000 beats a beat
 * costs 1.5–4× what it costs afterwards (one-off work, measured in 1,000-beat steps); with 2,000 warm-up beats the
 * first repetitions measured that, and the median moved between 1.3× and 1.8× from run to run.
 */
export const DEFAULT_IDLE_BEAT_OPTIONS: IdleBeatOptions = { warmupBeats: 20_000, beatsPerRep: 4_000, reps: 11 };

export const BEAT_MS = 1000;
export const START = Date.parse('2026-03-01T10:00:00Z');

type SimClock = ReturnType<typeof createSimulatedClock>;

/**
 * Milliseconds a heartbeat spent on `beats` beats: in all (`totalMs`), in the synchronous beat alone (`syncMs`), and
 * the CPU time of the process's main thread meanwhile (`threadCpuMs`: what other processes on a shared machine do not
 * add to, and what LevelDB's own threads do not either).
 */
export interface DriveTime {
  totalMs: number;
  syncMs: number;
  threadCpuMs: number;
}

const nextMacrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Drives `beats` beats by `clock.increment(BEAT_MS)`, each in its own macrotask as in real time (a setImmediate
 * between beats), so work a beat defers (the runtime's event journal write, the event seq's block reservation)
 * runs and is counted, as it would be between real beats. The bare machine pays the same setImmediate.
 */
export async function drive(clock: SimClock, beats: number): Promise<DriveTime> {
  let syncMs = 0;
  const cpuStart = process.threadCpuUsage();
  const start = performance.now();
  for (let i = 0; i < beats; i += 1) {
    const beatStart = performance.now();
    clock.increment(BEAT_MS);
    syncMs += performance.now() - beatStart;
    await nextMacrotask();
  }
  const totalMs = performance.now() - start;
  const cpu = process.threadCpuUsage(cpuStart);
  await yieldToLoop(1);
  return { totalMs, syncMs, threadCpuMs: (cpu.user + cpu.system) / 1000 };
}

/**
 * A runtime on real LevelDB in `dataDir` that only beats (no checkpoints, a fixed interval), on the simulated `clock`;
 * `config` sets more (bench 17: the webhook retry hours).
 */
export function startIdleRuntime(
  dataDir: string,
  clock: SimClock,
  thinker = new CountingThinker(),
  config: { webhookRetryHours?: number } = {},
): Promise<Runtime> {
  return createRuntime({
    clock,
    thinker,
    config: {
      ...config,
      dataDir,
      thinker: 'offline',
      checkpointEnabled: false,
      beatMs: BEAT_MS,
      beatMinMs: BEAT_MS,
      beatMaxMs: BEAT_MS,
    },
  });
}

/** Runs bench 1. */
export async function idleBeatBench(options: IdleBeatOptions = DEFAULT_IDLE_BEAT_OPTIONS): Promise<BenchOutcome> {
  return withTempDir('idle', async (dataDir) => {
    const clock = createSimulatedClock(START);
    const thinker = new CountingThinker();
    const runtime = await startIdleRuntime(dataDir, clock, thinker);
    const bareClock = createSimulatedClock(START);
    const bare = startBareHeartbeat(bareClock);
    try {
      runtime.start();
      await drive(clock, options.warmupBeats);
      await drive(bareClock, options.warmupBeats);
      const runtimeUs: number[] = [];
      const bareUs: number[] = [];
      const runtimeSyncUs: number[] = [];
      const bareSyncUs: number[] = [];
      const runtimeCpuUs: number[] = [];
      const bareCpuUs: number[] = [];
      const perBeatUs = (ms: number): number => (ms / options.beatsPerRep) * 1000;
      // Alternating repetitions share whatever drift the machine has (GC, frequency, other load); the order swaps
      // every repetition, so the runtime's deferred work (a journal batch still being written, LevelDB compacting)
      // falls as often into the bare machine's repetition after it as into its own.
      for (let rep = 0; rep < options.reps; rep += 1) {
        const runRuntime = async () => {
          const r = await drive(clock, options.beatsPerRep);
          runtimeUs.push(perBeatUs(r.totalMs));
          runtimeSyncUs.push(perBeatUs(r.syncMs));
          runtimeCpuUs.push(perBeatUs(r.threadCpuMs));
        };
        const runBare = async () => {
          const b = await drive(bareClock, options.beatsPerRep);
          bareUs.push(perBeatUs(b.totalMs));
          bareSyncUs.push(perBeatUs(b.syncMs));
          bareCpuUs.push(perBeatUs(b.threadCpuMs));
        };
        for (const side of rep % 2 === 0 ? [runRuntime, runBare] : [runBare, runRuntime]) await side();
      }
      const expected = options.warmupBeats + options.beatsPerRep * options.reps;
      const status = runtime.status();
      const ticks = bare.childTicks();
      const runtimeMedian = median(runtimeUs);
      const bareMedian = median(bareUs);
      return {
        id: 'idle-beat',
        title: `1. Idle beat cost (${options.reps} × ${options.beatsPerRep} beats after ${options.warmupBeats} warm-up, simulated clock, real LevelDB)`,
        checks: [
          pairedRatioCheck(
            'idle-beat.ratio',
            'idle beat: runtime / bare XState',
            { values: runtimeUs, unit: 'µs/beat', what: 'runtime' },
            { values: bareUs, unit: 'µs/beat', what: 'bare XState' },
            '<=',
            1.5,
          ),
          ratioInfo(
            'idle-beat.thread-cpu-ratio',
            "idle beat, the main thread's CPU time only (other processes' load left out)",
            { value: median(runtimeCpuUs), unit: 'µs/beat', what: 'runtime' },
            { value: median(bareCpuUs), unit: 'µs/beat', what: 'bare XState' },
          ),
          ratioInfo(
            'idle-beat.sync-ratio',
            'idle beat, synchronous part only',
            { value: median(runtimeSyncUs), unit: 'µs/beat', what: 'runtime' },
            { value: median(bareSyncUs), unit: 'µs/beat', what: 'bare XState' },
          ),
        ],
        details: [
          { label: 'runtime, median repetition', value: runtimeMedian, unit: 'µs/beat' },
          { label: 'runtime, fastest repetition', value: Math.min(...runtimeUs), unit: 'µs/beat' },
          { label: 'runtime, slowest repetition', value: Math.max(...runtimeUs), unit: 'µs/beat' },
          { label: 'bare XState, median repetition', value: bareMedian, unit: 'µs/beat' },
          { label: 'bare XState, fastest repetition', value: Math.min(...bareUs), unit: 'µs/beat' },
          { label: 'bare XState, slowest repetition', value: Math.max(...bareUs), unit: 'µs/beat' },
          {
            label: 'runtime, synchronous beat only (clock.increment), median',
            value: median(runtimeSyncUs),
            unit: 'µs/beat',
          },
          {
            label: 'bare XState, synchronous beat only (clock.increment), median',
            value: median(bareSyncUs),
            unit: 'µs/beat',
          },
          {
            label: 'runtime, work deferred past the beat (total − synchronous)',
            value: median(runtimeUs) - median(runtimeSyncUs),
            unit: 'µs/beat',
          },
          {
            label: 'bare XState, total − synchronous (setImmediate + timing overhead)',
            value: median(bareUs) - median(bareSyncUs),
            unit: 'µs/beat',
          },
          { label: 'beats driven per heartbeat', value: expected, unit: 'beats' },
        ],
        sanity: [
          sanity(
            'runtime beat N times',
            status.beatCount === expected,
            `status().beatCount = ${status.beatCount}, expected ${expected}`,
          ),
          sanity(
            'runtime beats were idle',
            thinker.thinks === 0 && thinker.tasks === 0,
            `${thinker.thinks} thinks, ${thinker.tasks} swarm tasks`,
          ),
          sanity(
            'runtime is still beating',
            status.phase === 'sleep' && status.consecutiveFailures === 0,
            `phase ${status.phase}, ${status.consecutiveFailures} consecutive failures`,
          ),
          sanity(
            'bare machine beat N times',
            bare.beatCount() === expected,
            `beatCount = ${bare.beatCount()}, expected ${expected}`,
          ),
          sanity(
            'each bare child got one event per beat',
            ticks.every((t) => t === expected),
            `child ticks ${ticks.join(', ')}`,
          ),
        ],
        notes: [
          'Each beat is one macrotask (setImmediate between beats) on both sides; the check uses the total, which counts work a beat defers.',
        ],
      };
    } finally {
      bare.stop();
      await runtime.stop();
    }
  });
}
