/**
 * Bench 8: what tracing adds to a think. A real runtime on on-disk LevelDB with the offline thinker (no model, so the
 * think's own overhead is all Vigil's: think input, ledger charge synced, settling, the reply's synced ending) answers
 * messages; the trace write of each think (build, store with retention pruning, `think.traced`) is timed inside it.
 * The ratio is trace write / whole think, at steady state (the retention limit reached, so each add also prunes).
 */
import { createRuntime } from '../src/runtime/create-runtime.js';
import { createSimulatedClock } from '../src/shared/clock.js';
import type { SettledThink, ThinkTraceSink } from '../src/subsystems/traces/think-tracer.js';
import { internalsOf, median, withTempDir } from './bench-utils.js';
import { CountingThinker } from './counting-thinker.js';
import { ratioCheck, ratioInfo, sanity, type BenchOutcome } from './report.js';

/** How many thinks: a warm-up that fills the retention limit, then measured ones. */
export interface ThinkTraceOptions {
  /** VIGIL_TRACE_MAX_COUNT for the run; the warm-up passes it, so measured adds prune. */
  maxCount: number;
  warmupThinks: number;
  measuredThinks: number;
}
export const DEFAULT_THINK_TRACE_OPTIONS: ThinkTraceOptions = { maxCount: 200, warmupThinks: 250, measuredThinks: 300 };

/** One run: per-think times of the whole think and of its trace write, with content tracing on or off. */
async function measure(
  options: ThinkTraceOptions,
  traceContent: boolean,
): Promise<{ thinkMs: number[]; traceMs: number[]; kept: number; traced: number }> {
  return withTempDir(traceContent ? 'trace-content' : 'trace', async (dataDir) => {
    const clock = createSimulatedClock(Date.parse('2026-03-01T10:00:00Z'));
    const thinker = new CountingThinker();
    const runtime = await createRuntime({
      clock,
      thinker,
      config: {
        dataDir,
        checkpointEnabled: false,
        beatMs: 60_000,
        beatMinMs: 60_000,
        beatMaxMs: 60_000,
        traceMaxCount: options.maxCount,
        traceContent,
      },
    });
    const deps = internalsOf(runtime).parts.deps;
    const inner = deps.traces!;
    const traceMs: number[] = [];
    // The heartbeat reads its sink at each think: timing it here times exactly what tracing adds to the think.
    const timed: ThinkTraceSink = {
      async record(think: SettledThink) {
        const start = performance.now();
        await inner.record(think);
        traceMs.push(performance.now() - start);
      },
    };
    deps.traces = timed;
    let traced = 0;
    const replies = new Map<string, () => void>();
    runtime.events$.subscribe((event) => {
      if (event.type === 'think.traced') traced += 1;
      if (event.type === 'agent.reply') replies.get(event.turnId)?.();
    });
    runtime.start();
    const thinkMs: number[] = [];
    try {
      for (let i = 0; i < options.warmupThinks + options.measuredThinks; i += 1) {
        const start = performance.now();
        let answered!: () => void;
        const replied = new Promise<void>((resolve) => (answered = resolve));
        const { turnId } = await runtime.send({ text: `Note ${i}: the shelf by the window holds the atlases.` });
        replies.set(turnId, answered);
        await replied;
        replies.delete(turnId);
        if (i >= options.warmupThinks) thinkMs.push(performance.now() - start);
        // A message wakes the heartbeat at once; a minute of simulated time lets its beat finish before the next.
        clock.increment(60_000);
      }
      const kept = (await runtime.listThinks({ limit: 1000 })).length;
      return { thinkMs, traceMs: traceMs.slice(options.warmupThinks), kept, traced };
    } finally {
      await runtime.stop();
    }
  });
}

/** Runs bench 8. */
export async function thinkTraceBench(options: ThinkTraceOptions = DEFAULT_THINK_TRACE_OPTIONS): Promise<BenchOutcome> {
  const plain = await measure(options, false);
  const withContent = await measure(options, true);
  const total = options.warmupThinks + options.measuredThinks;
  return {
    id: 'think-trace',
    title: '8. Think trace',
    checks: [
      ratioCheck(
        'think-trace-ratio',
        "a think's trace write / the whole think it traces (offline thinker: Vigil's own overhead, no model)",
        {
          value: median(plain.traceMs),
          unit: 'ms',
          what: 'per think: build the trace, store it with retention pruning, think.traced (median)',
        },
        {
          value: median(plain.thinkMs),
          unit: 'ms',
          what: 'per think: agent.send → agent.reply on on-disk LevelDB, trace included (median)',
        },
        '<=',
        0.25,
      ),
      ratioInfo(
        'think-trace-content-ratio',
        'the same with VIGIL_TRACE_CONTENT=true (prompt and answer text stored)',
        { value: median(withContent.traceMs), unit: 'ms', what: 'per think, trace write with content (median)' },
        {
          value: median(withContent.thinkMs),
          unit: 'ms',
          what: 'per think, whole think with content tracing (median)',
        },
      ),
    ],
    details: [],
    sanity: [
      sanity(
        'every think was traced',
        plain.traced === total && withContent.traced === total,
        `${plain.traced} and ${withContent.traced} of ${total} think.traced`,
      ),
      sanity(
        'retention held at VIGIL_TRACE_MAX_COUNT',
        plain.kept === options.maxCount && withContent.kept === options.maxCount,
        `${plain.kept} and ${withContent.kept} kept of ${options.maxCount}`,
      ),
    ],
    notes: [
      'The trace write is one unsynced LevelDB batch (summary, details, pruned entries): a crash may lose the last traces, never a think.',
    ],
  };
}
