/** The swarms reducer: a task's life from queued to running to done, failed or cancelled, its spend, consumption, and re-queueing on restore. */
import type { SwarmTask, SwarmsEvent, SwarmsState } from './swarms.schema.js';

/** Sub-agent tasks run at once when none is given. */
export const DEFAULT_SWARM_CONCURRENCY = 3;

/** Consumed finished tasks kept; older ones are forgotten. */
export const MAX_CONSUMED_TASKS = 100;

/** An empty swarm with `concurrency` slots. */
export function initialSwarmsState(concurrency = DEFAULT_SWARM_CONCURRENCY): SwarmsState {
  return { concurrency, tasks: [] };
}

/** True for a task that has a result or an error. */
export const isFinishedTask = (task: SwarmTask): boolean =>
  task.status === 'done' || task.status === 'failed' || task.status === 'cancelled';

/** Drops the oldest consumed finished tasks (by when they finished) past `MAX_CONSUMED_TASKS`, keeping creation order. */
export function pruneConsumedTasks(state: SwarmsState): SwarmsState {
  const forgettable = state.tasks.filter((task) => task.consumed && isFinishedTask(task));
  const excess = forgettable.length - MAX_CONSUMED_TASKS;
  if (excess <= 0) return state;
  // Array.prototype.sort is stable, so equal finish times fall back to creation order.
  const dropped = new Set(
    [...forgettable]
      .sort((a, b) => (a.finishedAt ?? a.createdAt) - (b.finishedAt ?? b.createdAt))
      .slice(0, excess)
      .map((task) => task.id),
  );
  return { ...state, tasks: state.tasks.filter((task) => !dropped.has(task.id)) };
}

/** Replaces task `id` with `update(task)` when `accepts(task)`; otherwise (or for an unknown id) changes nothing. */
function updateTask(
  state: SwarmsState,
  id: string,
  accepts: (task: SwarmTask) => boolean,
  update: (task: SwarmTask) => SwarmTask,
): SwarmsState {
  const index = state.tasks.findIndex((task) => task.id === id);
  const task = state.tasks[index];
  if (task === undefined || !accepts(task)) return state;
  const tasks = [...state.tasks];
  tasks[index] = update(task);
  return { ...state, tasks };
}

// A result may arrive for a task never marked started; a finished task's outcome is final.
const isUnfinished = (task: SwarmTask): boolean => !isFinishedTask(task);

/** Removes `startedAt` and `deadlineAt` without leaving undefined keys behind (checkpoints are JSON). */
function withoutStartedAt(task: SwarmTask): SwarmTask {
  const { startedAt: _startedAt, deadlineAt: _deadlineAt, ...rest } = task;
  return rest;
}

/** The swarms reducer: pure and total. */
export function swarmsReducer(state: SwarmsState, event: SwarmsEvent): SwarmsState {
  switch (event.type) {
    case 'swarm.spawn': {
      if (state.tasks.some((task) => task.id === event.task.id)) return state;
      const task: SwarmTask = { ...event.task, status: 'queued', consumed: false, createdAt: event.at };
      return { ...state, tasks: [...state.tasks, task] };
    }
    case 'swarm.started':
      return updateTask(
        state,
        event.id,
        (task) => task.status === 'queued',
        (task) => ({
          ...task,
          status: 'running',
          startedAt: event.at,
          ...(task.deadlineMs === undefined ? {} : { deadlineAt: event.at + task.deadlineMs }),
        }),
      );
    case 'swarm.charged':
      // Spend counts whatever the task's state: money spent by a call that landed after a cancel is still spent.
      return updateTask(
        state,
        event.id,
        () => true,
        (task) => ({ ...task, costMicroUsd: (task.costMicroUsd ?? 0) + event.costMicroUsd }),
      );
    case 'swarm.cancelled':
      return updateTask(state, event.id, isUnfinished, (task) => ({
        ...task,
        status: 'cancelled',
        error: event.reason,
        finishedAt: event.at,
      }));
    case 'swarm.succeeded':
      return updateTask(state, event.id, isUnfinished, (task) => ({
        ...task,
        status: 'done',
        result: event.result,
        finishedAt: event.at,
      }));
    case 'swarm.failed':
      return updateTask(state, event.id, isUnfinished, (task) => ({
        ...task,
        status: 'failed',
        error: event.error,
        finishedAt: event.at,
      }));
    case 'swarm.consumed': {
      const ids = new Set(event.ids);
      // Only finished, not yet consumed tasks can be consumed; anything else in `ids` is ignored.
      const hit = (task: SwarmTask): boolean => ids.has(task.id) && isFinishedTask(task) && !task.consumed;
      if (!state.tasks.some(hit)) return state;
      const tasks = state.tasks.map((task) => (hit(task) ? { ...task, consumed: true } : task));
      return pruneConsumedTasks({ ...state, tasks });
    }
    case 'swarm.requeue_running': {
      if (!state.tasks.some((task) => task.status === 'running')) return state;
      const tasks = state.tasks.map((task) =>
        task.status === 'running' ? { ...withoutStartedAt(task), status: 'queued' as const } : task,
      );
      return { ...state, tasks };
    }
  }
}

// Selectors: read-only views for the heartbeat and the gateway.

/** Tasks currently running, in creation order. */
export function runningTasks(state: SwarmsState): SwarmTask[] {
  return state.tasks.filter((task) => task.status === 'running');
}

/** Queued tasks that may start now, in creation order, filling the free concurrency slots. */
export function startableTasks(state: SwarmsState): SwarmTask[] {
  const free = Math.max(0, state.concurrency - runningTasks(state).length);
  return state.tasks.filter((task) => task.status === 'queued').slice(0, free);
}

/** Finished tasks whose result or error has not yet been fed to a sense phase. */
export function unconsumedResults(state: SwarmsState): SwarmTask[] {
  return state.tasks.filter((task) => isFinishedTask(task) && !task.consumed);
}

/** The task with `id`, if any. */
export function findTask(state: SwarmsState, id: string): SwarmTask | undefined {
  return state.tasks.find((task) => task.id === id);
}
