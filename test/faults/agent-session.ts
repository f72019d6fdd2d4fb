/** Drives a real runtime on a data dir for some simulated beats (goals, a message, paid thinks, checkpoints), then stops it cleanly. */
import type { VigilConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import type { VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { firstValueFrom, filter, timeout } from 'rxjs';

/** Settings of a session: 1 s beats, a checkpoint every 5, ten kept, a tenth of a cent per think. */
export const SESSION_CONFIG: Partial<VigilConfig> = {
  beatMs: 1000,
  beatMinMs: 1000,
  beatMaxMs: 1000,
  checkpointIntervalBeats: 5,
  checkpointMaxCount: 10,
  offlineCostUsd: 0.001,
  dailyBudgetUsd: 100,
};

/** What a session left behind. */
export interface SessionResult {
  /** Every checkpoint it stored, oldest first (the final one at stop included). */
  checkpoints: Array<{ id: string; beatCount: number }>;
  goalTitles: string[];
  /** The budget's spend today when it stopped, USD. */
  spentTodayUsd: number;
}

/** How to run a session. */
export interface SessionOptions {
  /** The data dir (the runtime opens and closes `<dataDir>/db`) or an open database (left open). */
  dataDir?: string;
  db?: VigilDb;
  /** Simulated start time (epoch ms). */
  startMs: number;
  beats: number;
  /** Titles of due goals to add at the start (the agent thinks, and pays, on each beat until they are done). */
  goals?: string[];
  message?: string;
}

/** Runs one session and stops it (final checkpoint). */
export async function runSession(options: SessionOptions): Promise<SessionResult> {
  const clock = createSimulatedClock(options.startMs);
  const runtime: Runtime = await createRuntime({
    config: { ...SESSION_CONFIG, ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }) },
    ...(options.db === undefined ? {} : { db: options.db }),
    clock,
  });
  const checkpoints: SessionResult['checkpoints'] = [];
  runtime.events$.subscribe((event) => {
    if (event.type === 'checkpoint.created') checkpoints.push({ id: event.checkpointId, beatCount: event.beatCount });
  });
  runtime.start();
  for (const title of options.goals ?? [])
    runtime.addGoal({ title, priority: 7, dueAt: new Date(options.startMs - 60_000).toISOString() });
  if (options.message !== undefined) await runtime.send({ text: options.message });
  // One beat per simulated second; each waits for its heartbeat.beat, since a paid think waits on synced LevelDB writes.
  for (let beat = 0; beat < options.beats; beat += 1) {
    const beaten = nextBeat(runtime);
    clock.increment(1000);
    await beaten;
    await runtime.flush();
  }
  const goalTitles = runtime.listGoals().map((g) => g.title);
  const spentTodayUsd = runtime.budgetStatus().spentTodayUsd;
  await runtime.stop();
  return { checkpoints, goalTitles, spentTodayUsd };
}

/** The next `heartbeat.beat` (bounded, so a stuck heartbeat fails the test instead of hanging it). */
function nextBeat(runtime: Runtime): Promise<unknown> {
  return firstValueFrom(
    runtime.events$.pipe(
      filter((event) => event.type === 'heartbeat.beat'),
      timeout({ first: 10_000 }),
    ),
  );
}
