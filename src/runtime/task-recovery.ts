/**
 * Sub-agent tasks at boot: none is silently lost, none runs again blindly. Tasks the task log knows but the
 * checkpoint does not (spawned after it) are brought back; a task that had started and made a call to a
 * non-idempotent tool is failed and reported, one that made none is re-queued; turns wait for their tasks again.
 */
import { findTask, isFinishedTask, swarmsReducer } from '../actors/swarms/swarms.reducer.js';
import type { SwarmsState, SwarmTask } from '../actors/swarms/swarms.schema.js';
import type { HeartbeatSeed } from '../heartbeat/heartbeat.types.js';
import { actedNonIdempotently, interruptedText } from '../heartbeat/task-interruption.js';

export { interruptedText };
import type { ToolCallRecord } from '../protocol/tool-call.schema.js';
import type { SwarmResultRecord } from '../subsystems/swarm-results/swarm-result-log.js';
import type { SwarmTaskRecord } from '../subsystems/swarm-results/swarm-task-log.js';

/** What the logs say, read at boot. */
export interface TaskRecoveryInput {
  seed: HeartbeatSeed;
  /** The task log, oldest first. */
  taskLog: readonly SwarmTaskRecord[];
  /** Recorded outcomes of the tasks in the task log (those that have one). */
  results: readonly SwarmResultRecord[];
  /** The tool call log. */
  toolCalls: readonly ToolCallRecord[];
  now: number;
}

/** One task a crash (or a stop) cut off while it ran, and what became of it. */
export interface InterruptedTask {
  taskId: string;
  turnId: string;
  outcome: 'requeued' | 'failed';
  callIds: string[];
  /** For `failed`: the outcome's text, to be recorded durably before the seed is used. */
  text?: string;
}

/** The seed to boot with, and the interrupted tasks to record (failures) and announce. */
export interface TaskRecovery {
  seed: HeartbeatSeed;
  interrupted: InterruptedTask[];
}

/** Recovers the tasks of `seed` against the logs (pure: the caller writes the failures and emits the events). */
export function recoverTasks(input: TaskRecoveryInput): TaskRecovery {
  const { seed, now } = input;
  const openTurns = new Set(seed.turns.pending.map((open) => open.turnId));
  const resultOf = new Map(input.results.map((result) => [result.taskId, result]));
  let swarms = seed.actors.swarms;
  // Spawned after the checkpoint: back into the state when unfinished, or when finished with its turn still waiting.
  for (const record of input.taskLog) {
    if (findTask(swarms, record.id) !== undefined) continue;
    const result = resultOf.get(record.id);
    if (result !== undefined && !openTurns.has(record.turnId)) continue;
    swarms = swarmsReducer(swarms, { type: 'swarm.spawn', at: record.createdAt, task: specOf(record) });
    if (result !== undefined) swarms = applyResult(swarms, result);
  }
  const started = new Set(input.taskLog.filter((record) => record.startedAt !== undefined).map((record) => record.id));
  const interrupted: InterruptedTask[] = [];
  for (const task of swarms.tasks) {
    if (isFinishedTask(task)) continue;
    const calls = input.toolCalls.filter((call) => call.taskId === task.id);
    if (actedNonIdempotently(calls)) {
      const text = interruptedText(task.id, calls);
      interrupted.push({
        taskId: task.id,
        turnId: task.turnId,
        outcome: 'failed',
        callIds: calls.map((c) => c.callId),
        text,
      });
    } else if (started.has(task.id) || calls.length > 0) {
      interrupted.push({
        taskId: task.id,
        turnId: task.turnId,
        outcome: 'requeued',
        callIds: calls.map((c) => c.callId),
      });
    }
  }
  for (const task of interrupted) {
    if (task.outcome === 'failed')
      swarms = swarmsReducer(swarms, { type: 'swarm.failed', at: now, id: task.taskId, error: task.text! });
  }
  swarms = swarmsReducer(swarms, { type: 'swarm.requeue_running', at: now });
  return {
    seed: { ...seed, actors: { ...seed.actors, swarms }, turns: awaitTaskResults(seed.turns, swarms) },
    interrupted,
  };
}

function specOf(
  record: SwarmTaskRecord,
): Extract<Parameters<typeof swarmsReducer>[1], { type: 'swarm.spawn' }>['task'] {
  return {
    id: record.id,
    turnId: record.turnId,
    prompt: record.prompt,
    ...(record.tools === undefined ? {} : { tools: record.tools }),
    ...(record.deadlineMs === undefined ? {} : { deadlineMs: record.deadlineMs }),
    ...(record.maxCostMicroUsd === undefined ? {} : { maxCostMicroUsd: record.maxCostMicroUsd }),
  };
}

function applyResult(swarms: SwarmsState, result: SwarmResultRecord): SwarmsState {
  const { taskId: id, finishedAt: at, text } = result;
  if (result.status === 'done') return swarmsReducer(swarms, { type: 'swarm.succeeded', at, id, result: text });
  if (result.status === 'failed') return swarmsReducer(swarms, { type: 'swarm.failed', at, id, error: text });
  return swarmsReducer(swarms, { type: 'swarm.cancelled', at, id, reason: text });
}

/** Open turns with a task still to report (unfinished, or finished and not yet digested) wait for it, not a new think. */
function awaitTaskResults(turns: HeartbeatSeed['turns'], swarms: SwarmsState): HeartbeatSeed['turns'] {
  const waiting = new Set(swarms.tasks.filter((task: SwarmTask) => !task.consumed).map((task) => task.turnId));
  if (!turns.pending.some((open) => waiting.has(open.turnId) && open.awaitingTask !== true)) return turns;
  return {
    ...turns,
    pending: turns.pending.map((open) => (waiting.has(open.turnId) ? { ...open, awaitingTask: true } : open)),
  };
}
