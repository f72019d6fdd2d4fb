/** A think's `spawn_task` becoming a queued task with its limits (the configured defaults where the model gave none). */
import type { SwarmTask } from '../actors/swarms/swarms.schema.js';
import type { SwarmTaskRecord } from '../subsystems/swarm-results/swarm-task-log.js';
import type { ThinkAction } from '../subsystems/thinking/thinker.schema.js';
import type { DomainActorRefs, HeartbeatDeps, HeartbeatOptions } from './heartbeat.types.js';

/** VIGIL_TASK_DEADLINE_MS's default: ten minutes. */
export const DEFAULT_TASK_DEADLINE_MS = 600_000;
/** VIGIL_TASK_MAX_COST_USD's default, $0.50, in micro-dollars. */
export const DEFAULT_TASK_MAX_COST_MICRO_USD = 500_000;

/** A task's limits as it runs: its own, else the configured defaults (a task from an older checkpoint has none). */
export interface TaskLimits {
  tools: string[];
  deadlineMs: number;
  maxCostMicroUsd: number;
}

/** The limits `task` runs under. */
export function taskLimits(
  task: Pick<SwarmTask, 'tools' | 'deadlineMs' | 'maxCostMicroUsd'>,
  options: HeartbeatOptions,
): TaskLimits {
  return {
    tools: task.tools ?? [],
    deadlineMs: task.deadlineMs ?? options.tasks?.deadlineMs ?? DEFAULT_TASK_DEADLINE_MS,
    maxCostMicroUsd: task.maxCostMicroUsd ?? options.tasks?.maxCostMicroUsd ?? DEFAULT_TASK_MAX_COST_MICRO_USD,
  };
}

/** The durable record of `task` (what the task log keeps). */
export function taskRecordOf(
  task: Pick<SwarmTask, 'id' | 'turnId' | 'prompt' | 'createdAt'>,
  limits: TaskLimits,
): SwarmTaskRecord {
  return {
    id: task.id,
    turnId: task.turnId,
    prompt: task.prompt,
    ...(limits.tools.length === 0 ? {} : { tools: limits.tools }),
    deadlineMs: limits.deadlineMs,
    maxCostMicroUsd: limits.maxCostMicroUsd,
    createdAt: task.createdAt,
  };
}

/** Queues the task a think asked for under `turnId` and announces it; returns its record for the task log. */
export function spawnTask(
  deps: HeartbeatDeps,
  refs: DomainActorRefs,
  turnId: string,
  action: Extract<ThinkAction, { type: 'spawn_task' }>,
): SwarmTaskRecord {
  const { clock, bus, ids, options } = deps;
  const at = clock.now();
  const id = `task-${ids.next()}`;
  const limits = taskLimits(action, options);
  const record = taskRecordOf({ id, turnId, prompt: action.prompt, createdAt: at }, limits);
  const { createdAt: _createdAt, startedAt: _startedAt, ...task } = record;
  refs.swarms.send({ type: 'swarm.spawn', at, task });
  bus.emit('swarm.task_spawned', { taskId: id, turnId });
  return record;
}
