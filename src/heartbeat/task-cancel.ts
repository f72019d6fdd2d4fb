/** An operator's cancel of a sub-agent task, as a beat step: the task ends `cancelled` and its waiting turn hears it next. */
import { findTask, isFinishedTask } from '../actors/swarms/swarms.reducer.js';
import type { BeatStep } from './heartbeat.actions.js';
import type { HeartbeatContext } from './heartbeat.types.js';

/**
 * The step that cancels task `id` (its outcome is already recorded durably by the caller), or null when it is
 * unknown or already finished. The result is unconsumed like any finished task's, so the next beat's think gives the
 * waiting turn the outcome "cancelled"; the heartbeat is woken for it.
 */
export function cancelTask(context: HeartbeatContext, id: string, reason: string): BeatStep | null {
  const task = findTask(context.refs.swarms.getSnapshot().context, id);
  if (task === undefined || isFinishedTask(task)) return null;
  const { refs, deps } = context;
  return {
    patch: { wakeRequested: true },
    effects: [
      () => refs.swarms.send({ type: 'swarm.cancelled', at: deps.clock.now(), id, reason }),
      () => deps.bus.emit('swarm.task_finished', { taskId: id, status: 'cancelled' }),
    ],
  };
}
