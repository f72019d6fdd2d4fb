/** Bench 3: how much a checkpoint delays the next beat, in real time, with the realistic agent and a 10 ms beat. */
import { cpus, loadavg } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import { createRuntime } from '../src/runtime/create-runtime.js';
import { max, median, percentile } from './bench-utils.js';
import { CountingThinker } from './counting-thinker.js';
import {
  copyRealisticAgent,
  fixtureConfig,
  REALISTIC,
  summarise,
  type RealisticAgentSummary,
} from './realistic-agent.js';
import { createRecordingClock, type TimerRecord } from './recording-clock.js';
import { differenceCheck, sanity, type BenchOutcome, type Detail, type Sanity } from './report.js';

/** How long and how often to run. */
export interface BeatJitterOptions {
  beatMs: number;
  /** Beats measured per run, after `warmupBeats`. */
  beats: number;
  warmupBeats: number;
  /** Runs of each kind (baseline, checkpoints), alternating; the checks use the median run. */
  reps: number;
  checkpointIntervalBeats: number;
}

export const DEFAULT_BEAT_JITTER_OPTIONS: BeatJitterOptions = {
  beatMs: 10,
  beats: 300,
  warmupBeats: 20,
  reps: 5,
  checkpointIntervalBeats: 2,
};

/** What one real-time run measured. */
interface RunStats {
  checkpoints: boolean;
  /** Lateness of every measured beat timer, in beat order. */
  lateness: number[];
  /** Lateness of the timers that ran while a checkpoint was being saved (the wait right after a checkpoint beat). */
  latenessAfterCheckpoint: number[];
  latenessOtherWaits: number[];
  /** Lateness of the timers whose late window no garbage collection overlapped. */
  latenessWithoutGc: number[];
  /** Every measured beat timer, in beat order. */
  waits: TimerRecord[];
  /** Which of `waits` followed a checkpoint beat. */
  afterCheckpoint: boolean[];
  /** Pauses (ms) of the garbage collections during the measured beats. */
  gcPauses: number[];
  /** `phaseMs.integrate` on checkpoint beats and on the others. */
  integrateOnCheckpoint: number[];
  integrateOther: number[];
  /** Main-thread time from a beat's timer to the next setImmediate, on checkpoint beats and on the others. */
  busyOnCheckpoint: number[];
  busyOther: number[];
  beatsMeasured: number;
  checkpointsCreated: number;
  checkpointsFailed: number;
  thinks: number;
  wallMs: number;
  /** What the runtime restored before the run. */
  agent: RealisticAgentSummary;
}

// Beyond this many beat intervals without reaching the target beat, the run is abandoned (keeps the bench bounded).
const TIMEOUT_FACTOR = 5;

/** One real-time run on a fresh copy of the realistic agent. */
export async function runBeatJitterOnce(
  root: string,
  name: string,
  checkpoints: boolean,
  options: BeatJitterOptions,
): Promise<RunStats> {
  const dataDir = await copyRealisticAgent(root, name);
  const clock = createRecordingClock();
  const thinker = new CountingThinker();
  const { beatMs } = options;
  const runtime = await createRuntime({
    clock,
    thinker,
    // Goal work is paced out of the run (one think at its first beat), so every measured beat is idle and the
    // only difference between the two runs is the checkpointing.
    goalWorkEveryBeats: Number.MAX_SAFE_INTEGER,
    config: fixtureConfig(dataDir, {
      beatMs,
      beatMinMs: beatMs,
      beatMaxMs: beatMs,
      checkpointEnabled: checkpoints,
      checkpointIntervalBeats: options.checkpointIntervalBeats,
    }),
  });
  const agent = await summarise(runtime);
  const firstBeat = runtime.beatCount + 1;
  const measuredFrom = firstBeat + options.warmupBeats;
  const lastBeat = measuredFrom + options.beats - 1;
  const integrate = new Map<number, number>();
  const created = new Set<number>();
  let failed = 0;
  let stopping = false;
  let reached: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    reached = resolve;
  });
  runtime.events$.subscribe((event) => {
    if (event.type === 'heartbeat.beat') {
      integrate.set(event.beatCount, event.phaseMs.integrate);
      if (event.beatCount >= lastBeat) reached();
    } else if (event.type === 'checkpoint.created' && !stopping) {
      // The final checkpoint `stop()` writes is not a periodic one.
      created.add(event.beatCount);
    } else if (event.type === 'checkpoint.failed') {
      failed += 1;
    }
  });
  const gcs: Array<{ start: number; end: number }> = [];
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcs.push({ start: entry.startTime, end: entry.startTime + entry.duration });
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  const started = performance.now();
  runtime.start();
  const timeoutMs = (lastBeat - firstBeat + 1) * beatMs * TIMEOUT_FACTOR;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
  const wallMs = performance.now() - started;
  // Saves started by the last beats finish first, so they count; the final checkpoint of `stop()` does not.
  await runtime.flush();
  stopping = true;
  await runtime.stop('bench run finished');
  gcObserver.disconnect();

  // The heartbeat is the clock's only timer user: the i-th timer starts beat firstBeat + i (the first one waits the
  // interval stored in the restored checkpoint, the rest `beatMs`).
  const beatTimers = clock.records;
  const isCheckpointBeat = (beat: number): boolean => checkpoints && beat % options.checkpointIntervalBeats === 0;
  const stats: RunStats = {
    checkpoints,
    lateness: [],
    latenessAfterCheckpoint: [],
    latenessOtherWaits: [],
    latenessWithoutGc: [],
    waits: [],
    afterCheckpoint: [],
    gcPauses: [],
    integrateOnCheckpoint: [],
    integrateOther: [],
    busyOnCheckpoint: [],
    busyOther: [],
    beatsMeasured: 0,
    checkpointsCreated: [...created].filter((beat) => beat >= measuredFrom && beat <= lastBeat).length,
    checkpointsFailed: failed,
    thinks: thinker.thinks,
    wallMs,
    agent,
  };
  const firstMeasured = beatTimers[measuredFrom - firstBeat];
  const lastMeasured = beatTimers[lastBeat - firstBeat];
  if (firstMeasured !== undefined && lastMeasured !== undefined) {
    const from = firstMeasured.scheduledAt;
    const to = lastMeasured.scheduledAt + lastMeasured.ms + lastMeasured.latenessMs;
    stats.gcPauses = gcs.filter((gc) => gc.start >= from && gc.start <= to).map((gc) => gc.end - gc.start);
  }
  beatTimers.forEach((record: TimerRecord, i: number) => {
    const beat = firstBeat + i;
    if (beat < measuredFrom || beat > lastBeat) return;
    stats.beatsMeasured += 1;
    stats.lateness.push(record.latenessMs);
    stats.waits.push(record);
    stats.afterCheckpoint.push(isCheckpointBeat(beat - 1));
    const due = record.scheduledAt + record.ms;
    const fired = due + record.latenessMs;
    if (!gcs.some((gc) => gc.start < fired && gc.end > due)) stats.latenessWithoutGc.push(record.latenessMs);
    (isCheckpointBeat(beat - 1) ? stats.latenessAfterCheckpoint : stats.latenessOtherWaits).push(record.latenessMs);
    (isCheckpointBeat(beat) ? stats.busyOnCheckpoint : stats.busyOther).push(record.busyMs);
    const integrateMs = integrate.get(beat);
    if (integrateMs !== undefined)
      (isCheckpointBeat(beat) ? stats.integrateOnCheckpoint : stats.integrateOther).push(integrateMs);
  });
  return stats;
}

/** Runs bench 3 on copies of the realistic agent seeded under `root`. */
export async function beatJitterBench(
  root: string,
  options: BeatJitterOptions = DEFAULT_BEAT_JITTER_OPTIONS,
): Promise<BenchOutcome> {
  const baseline: RunStats[] = [];
  const withCheckpoints: RunStats[] = [];
  for (let rep = 0; rep < options.reps; rep += 1) {
    // Alternate which kind goes first, so neither always runs on a colder process.
    const order = rep % 2 === 0 ? [false, true] : [true, false];
    for (const on of order) {
      const stats = await runBeatJitterOnce(root, `jitter-${rep}-${on ? 'ckpt' : 'base'}`, on, options);
      (on ? withCheckpoints : baseline).push(stats);
    }
  }
  const medianOf = (runs: RunStats[], pick: (run: RunStats) => number): number => median(runs.map(pick));
  const worstOf = (runs: RunStats[], pick: (run: RunStats) => number): number => max(runs.map(pick));
  const ckptMax = medianOf(withCheckpoints, (r) => max(r.lateness));
  const baseP99 = medianOf(baseline, (r) => percentile(r.lateness, 99));
  const all = (runs: RunStats[], pick: (run: RunStats) => number[]): number[] => runs.flatMap(pick);

  const details: Detail[] = [
    {
      label: 'baseline: timer lateness p50 (median run)',
      value: medianOf(baseline, (r) => percentile(r.lateness, 50)),
      unit: 'ms',
    },
    { label: 'baseline: timer lateness p99 (median run)', value: baseP99, unit: 'ms' },
    {
      label: 'baseline: timer lateness max (median run)',
      value: medianOf(baseline, (r) => max(r.lateness)),
      unit: 'ms',
    },
    { label: 'baseline: timer lateness max (worst run)', value: worstOf(baseline, (r) => max(r.lateness)), unit: 'ms' },
    {
      label: 'checkpoints: timer lateness p50 (median run)',
      value: medianOf(withCheckpoints, (r) => percentile(r.lateness, 50)),
      unit: 'ms',
    },
    {
      label: 'checkpoints: timer lateness p99 (median run)',
      value: medianOf(withCheckpoints, (r) => percentile(r.lateness, 99)),
      unit: 'ms',
    },
    { label: 'checkpoints: timer lateness max (median run)', value: ckptMax, unit: 'ms' },
    {
      label: 'checkpoints: timer lateness max (worst run)',
      value: worstOf(withCheckpoints, (r) => max(r.lateness)),
      unit: 'ms',
    },
    {
      label: 'checkpoints minus baseline: max lateness (median runs)',
      value: ckptMax - medianOf(baseline, (r) => max(r.lateness)),
      unit: 'ms',
    },
    {
      label: 'checkpoints minus baseline: p99 lateness (median runs)',
      value: medianOf(withCheckpoints, (r) => percentile(r.lateness, 99)) - baseP99,
      unit: 'ms',
    },
    {
      label: 'checkpoint runs: waits right after a checkpoint beat, p99 (all runs)',
      value: percentile(
        all(withCheckpoints, (r) => r.latenessAfterCheckpoint),
        99,
      ),
      unit: 'ms',
    },
    {
      label: 'checkpoint runs: waits right after a checkpoint beat, max (median run)',
      value: medianOf(withCheckpoints, (r) => max(r.latenessAfterCheckpoint)),
      unit: 'ms',
    },
    {
      label: 'checkpoint runs: the other waits, p99 (all runs)',
      value: percentile(
        all(withCheckpoints, (r) => r.latenessOtherWaits),
        99,
      ),
      unit: 'ms',
    },
    {
      label: 'checkpoint runs: the other waits, max (median run)',
      value: medianOf(withCheckpoints, (r) => max(r.latenessOtherWaits)),
      unit: 'ms',
    },
    {
      label: 'checkpoints: max lateness of waits no GC overlapped (median run)',
      value: medianOf(withCheckpoints, (r) => max(r.latenessWithoutGc)),
      unit: 'ms',
    },
    {
      label: 'baseline: max lateness of waits no GC overlapped (median run)',
      value: medianOf(baseline, (r) => max(r.latenessWithoutGc)),
      unit: 'ms',
    },
    {
      label: 'checkpoints: GC pauses per run (median)',
      value: medianOf(withCheckpoints, (r) => r.gcPauses.length),
      unit: '',
    },
    {
      label: 'checkpoints: longest GC pause (all runs)',
      value: max([0, ...all(withCheckpoints, (r) => r.gcPauses)]),
      unit: 'ms',
    },
    { label: 'baseline: GC pauses per run (median)', value: medianOf(baseline, (r) => r.gcPauses.length), unit: '' },
    {
      label: 'baseline: longest GC pause (all runs)',
      value: max([0, ...all(baseline, (r) => r.gcPauses)]),
      unit: 'ms',
    },
    {
      label: 'integrate phase (phaseMs.integrate), checkpoint beats, median',
      value: median(all(withCheckpoints, (r) => r.integrateOnCheckpoint)),
      unit: 'ms',
    },
    {
      label: 'integrate phase (phaseMs.integrate), checkpoint beats, max',
      value: max(all(withCheckpoints, (r) => r.integrateOnCheckpoint)),
      unit: 'ms',
    },
    {
      label: 'integrate phase (phaseMs.integrate), other beats, median',
      value: median(all(withCheckpoints, (r) => r.integrateOther)),
      unit: 'ms',
    },
    {
      label: 'integrate phase (phaseMs.integrate), other beats, max',
      value: max(all(withCheckpoints, (r) => r.integrateOther)),
      unit: 'ms',
    },
    {
      label: 'timer → setImmediate (beat + microtasks + polled I/O), checkpoint beats, median',
      value: median(all(withCheckpoints, (r) => r.busyOnCheckpoint)),
      unit: 'ms',
    },
    {
      label: 'timer → setImmediate, checkpoint beats, max',
      value: max(all(withCheckpoints, (r) => r.busyOnCheckpoint)),
      unit: 'ms',
    },
    {
      label: 'timer → setImmediate, other beats, median',
      value: median(all(withCheckpoints, (r) => r.busyOther)),
      unit: 'ms',
    },
    {
      label: 'timer → setImmediate, other beats, max',
      value: max(all(withCheckpoints, (r) => r.busyOther)),
      unit: 'ms',
    },
    {
      label: 'checkpoints created per run (median)',
      value: medianOf(withCheckpoints, (r) => r.checkpointsCreated),
      unit: '',
    },
  ];

  // Attribution of the worst wait of each run: was the main thread busy (our code) or runnable but off the CPU
  // (other threads and processes had the cores)? From Linux schedstat; NaN elsewhere.
  const worstWait = (run: RunStats): TimerRecord | undefined =>
    run.waits.reduce<TimerRecord | undefined>(
      (worst, w) => (worst === undefined || w.latenessMs > worst.latenessMs ? w : worst),
      undefined,
    );
  const medianRunWorst = (runs: RunStats[]): TimerRecord | undefined => {
    const worsts = runs
      .map(worstWait)
      .filter((w): w is TimerRecord => w !== undefined)
      .sort((a, b) => a.latenessMs - b.latenessMs);
    return worsts[Math.floor((worsts.length - 1) / 2)];
  };
  const cpuDuring = (runs: RunStats[], after: boolean): number[] =>
    runs.flatMap((r) => r.waits.filter((_, i) => r.afterCheckpoint[i] === after).map((w) => w.onCpuMs ?? Number.NaN));
  for (const [kind, runs] of [
    ['checkpoints', withCheckpoints],
    ['baseline', baseline],
  ] as const) {
    const worst = medianRunWorst(runs);
    details.push(
      { label: `${kind}: worst wait of the median run — lateness`, value: worst?.latenessMs ?? Number.NaN, unit: 'ms' },
      { label: `${kind}: … main thread on CPU during that wait`, value: worst?.onCpuMs ?? Number.NaN, unit: 'ms' },
      {
        label: `${kind}: … main thread runnable but off CPU (run queue)`,
        value: worst?.runqueueMs ?? Number.NaN,
        unit: 'ms',
      },
      {
        label: `${kind}: waits more than 1 ms late per run (median)`,
        value: medianOf(runs, (r) => r.lateness.filter((l) => l > 1).length),
        unit: '',
      },
    );
  }
  details.push(
    {
      label: 'checkpoint runs: main-thread CPU during the wait after a checkpoint beat, median',
      value: median(cpuDuring(withCheckpoints, true)),
      unit: 'ms',
    },
    {
      label: 'checkpoint runs: main-thread CPU during the other waits, median',
      value: median(cpuDuring(withCheckpoints, false)),
      unit: 'ms',
    },
    {
      label: 'checkpoint runs: main-thread CPU during the wait after a checkpoint beat, max',
      value: max(cpuDuring(withCheckpoints, true)),
      unit: 'ms',
    },
  );

  const expectedCheckpoints = Math.floor(options.beats / options.checkpointIntervalBeats);
  const runs = [...baseline, ...withCheckpoints];
  const sanityChecks: Sanity[] = [
    sanity(
      'every run restored the realistic agent',
      runs.every(
        (r) =>
          r.agent.messages === REALISTIC.messages &&
          r.agent.goals === REALISTIC.goals &&
          r.agent.memoryItems === REALISTIC.memoryItems,
      ),
      runs.map((r) => `${r.agent.messages} messages/${r.agent.goals} goals/${r.agent.memoryItems} items`).join('; '),
    ),
    sanity(
      'every run measured all its beats',
      runs.every((r) => r.beatsMeasured === options.beats),
      `beats measured per run: ${runs.map((r) => r.beatsMeasured).join(', ')} (expected ${options.beats})`,
    ),
    sanity(
      `the runtime checkpointed every ${options.checkpointIntervalBeats} beats`,
      withCheckpoints.every(
        (r) => Math.abs(r.checkpointsCreated - expectedCheckpoints) <= 1 && r.checkpointsFailed === 0,
      ),
      `checkpoint.created in the measured beats per run: ${withCheckpoints.map((r) => r.checkpointsCreated).join(', ')} ` +
        `(expected ~${expectedCheckpoints}); checkpoint.failed: ${withCheckpoints.map((r) => r.checkpointsFailed).join(', ')}`,
    ),
    sanity(
      'the baseline took no periodic checkpoints',
      baseline.every((r) => r.checkpointsCreated === 0),
      `${baseline.map((r) => r.checkpointsCreated).join(', ')}`,
    ),
    sanity(
      'measured beats were idle (at most the first beat thinks)',
      runs.every((r) => r.thinks <= 1),
      `thinks per run: ${runs.map((r) => r.thinks).join(', ')}`,
    ),
    sanity(
      'the beat kept its pace',
      runs.every((r) => r.wallMs < (options.beats + options.warmupBeats) * options.beatMs * 2),
      `wall time per run: ${runs.map((r) => `${Math.round(r.wallMs)} ms`).join(', ')} for ${options.beats + options.warmupBeats} beats of ${options.beatMs} ms`,
    ),
  ];

  return {
    id: 'beat-jitter',
    title: `3. Beat delay caused by a checkpoint (real time, ${options.beatMs} ms beat, ${options.beats} beats after ${options.warmupBeats} warm-up, ${options.reps} runs each)`,
    checks: [
      differenceCheck(
        'beat-jitter.extra-delay',
        'largest extra beat delay from a checkpoint',
        { value: ckptMax, unit: 'ms', what: 'max lateness, checkpoints' },
        { value: baseP99, unit: 'ms', what: 'p99 lateness, baseline' },
        '<',
        2,
      ),
    ],
    details,
    sanity: sanityChecks,
    notes: [
      `Load average when the runs ended: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' / ')} (1/5/15 min) on ${cpus().length} CPUs; real-time lateness moves with other load on the machine.`,
      'Lateness = when a beat timer fired − when it was set − its delay, via a recording wrapper around systemClock.',
      'phaseMs.integrate is taken before the checkpoint snapshot (finishBeat in src/heartbeat/heartbeat.actions.ts), so it cannot show a checkpoint; the timer → setImmediate and main-thread CPU rows do.',
      'On CPU / run queue come from /proc/self/task/<pid>/schedstat: a late wait with little CPU and a long run queue was lost to other threads or processes, not to Vigil code.',
    ],
  };
}
