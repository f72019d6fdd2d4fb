/**
 * What the heartbeat does when a child it spawned ends: a ledger probe answers, a swarm task records its outcome, a
 * crashed domain actor is restarted from its last good state. Plain functions returning effects and raised events.
 */
import { findTask, isFinishedTask } from '../actors/swarms/swarms.reducer.js';
import { describeError } from '../errors.js';
import type { SwarmTaskOutput } from '../subsystems/thinking/thinker.schema.js';
import type { DomainActorName, HeartbeatContext, HeartbeatEvent } from './heartbeat.types.js';
import { crashedActorName, LEDGER_PROBE_ID, SWARM_TASK_PREFIX } from './supervision.js';

/** Effects and events for one child's ending; `restart` names a domain actor to restart, if one crashed. */
export interface ChildOutcome {
  effects: Array<() => void>;
  raise: HeartbeatEvent[];
  restart: { name: DomainActorName; error: string } | null;
}

const NOTHING: ChildOutcome = { effects: [], raise: [], restart: null };

/** A child failed: the probe says the ledger is still down, a task is recorded failed, a domain actor restarts. */
export function childFailed(context: HeartbeatContext, childId: string, thrown: unknown): ChildOutcome {
  const error = describeError(thrown);
  const { bus, clock } = context.deps;
  if (childId === LEDGER_PROBE_ID) return { ...NOTHING, raise: [{ type: 'LEDGER_PROBED', ok: false }] };
  if (childId.startsWith(SWARM_TASK_PREFIX)) {
    const taskId = childId.slice(SWARM_TASK_PREFIX.length);
    if (alreadyFinished(context, taskId)) return NOTHING;
    const code = (thrown as { code?: unknown } | null)?.code;
    return {
      effects: [
        () => context.refs.swarms.send({ type: 'swarm.failed', at: clock.now(), id: taskId, error }),
        () => bus.emit('swarm.task_finished', { taskId, status: 'failed' }),
      ],
      // Its cost could not be recorded: stop thinking until the ledger writes again.
      raise: code === 'BUDGET_LEDGER_UNAVAILABLE' ? [{ type: 'LEDGER_FAILED', reason: error }] : [],
      restart: null,
    };
  }
  const name = crashedActorName(childId);
  return name === null ? NOTHING : { ...NOTHING, restart: { name, error } };
}

/** A child finished: the probe says the ledger writes again, a task's result is recorded and the budget checked. */
export function childDone(context: HeartbeatContext, childId: string, output: unknown): ChildOutcome {
  if (childId === LEDGER_PROBE_ID) return { ...NOTHING, raise: [{ type: 'LEDGER_PROBED', ok: true }] };
  if (!childId.startsWith(SWARM_TASK_PREFIX)) return NOTHING;
  const taskId = childId.slice(SWARM_TASK_PREFIX.length);
  if (alreadyFinished(context, taskId)) return { ...NOTHING, raise: [{ type: 'BUDGET_CHECK' }] };
  const text = (output as SwarmTaskOutput | undefined)?.text ?? '';
  return {
    effects: [
      () =>
        context.refs.swarms.send({ type: 'swarm.succeeded', at: context.deps.clock.now(), id: taskId, result: text }),
      () => context.deps.bus.emit('swarm.task_finished', { taskId, status: 'done' }),
    ],
    // Spend moved outside a think: stop at once if the task's cost reached the hard stop.
    raise: [{ type: 'BUDGET_CHECK' }],
    restart: null,
  };
}

/** A task that already has its outcome (an operator cancelled it first) takes no second one. */
function alreadyFinished(context: HeartbeatContext, taskId: string): boolean {
  const task = findTask(context.refs.swarms.getSnapshot().context, taskId);
  return task !== undefined && isFinishedTask(task);
}
