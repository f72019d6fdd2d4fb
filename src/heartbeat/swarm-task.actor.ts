/**
 * One sub-agent task as a promise actor: marked started on disk, run with its deadline on the injected clock, each
 * model call's cost in the ledger as it lands (and on the task), and its outcome recorded durably before it counts.
 */
import { fromPromise, type ActorRefFrom, type ActorSystem } from 'xstate';
import type { swarmsLogic } from '../actors/swarms/swarms.actor.js';
import type { SwarmTask } from '../actors/swarms/swarms.schema.js';
import { VigilError, describeError } from '../errors.js';
import type { TaskHooks } from '../subsystems/thinking/thinker.js';
import type { SwarmTaskOutput } from '../subsystems/thinking/thinker.schema.js';
import { budgetRefOf, partialCostOf, recordCost, type Cost } from './cost-recorder.js';
import type { HeartbeatDeps } from './heartbeat.types.js';
import { actedNonIdempotently, interruptedText } from './task-interruption.js';
import { taskRecordOf, taskLimits } from './task-spawn.js';

/** Input of one swarm task actor: the task as the swarms actor had it when it started. */
export interface SwarmTaskActorInput {
  deps: HeartbeatDeps;
  task: SwarmTask;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- XState types a promise actor's system this loosely.
const swarmsRefOf = (system: ActorSystem<any>) => system.get('swarms') as ActorRefFrom<typeof swarmsLogic>;

/**
 * Runs one task. An abort by the heartbeat (daemon stopping, hard stop, restore, an operator's cancel) records no
 * outcome: the task is re-queued, or its cancel was recorded first. Its deadline fails it with TASK_DEADLINE_PASSED.
 */
export const swarmTaskLogic = fromPromise<SwarmTaskOutput, SwarmTaskActorInput>(async ({ input, signal, system }) => {
  const { deps, task } = input;
  const { clock } = deps;
  const limits = taskLimits(task, deps.options);
  // Started before and cut off in this process (the hard stop, a restore): never run again after a non-idempotent call.
  await refuseRerunAfterActing(deps, task);
  // Synced before it runs: after a crash, a task known to have started is one whose tool calls may have happened.
  await deps.swarmTasks.started(taskRecordOf(task, limits), clock.now());
  let charged = 0;
  const charge = async (cost: Cost): Promise<void> => {
    if (cost.costMicroUsd <= 0) return;
    await recordCost(deps, budgetRefOf(system), 'task', cost);
    charged += cost.costMicroUsd;
    swarmsRefOf(system).send({ type: 'swarm.charged', at: clock.now(), id: task.id, costMicroUsd: cost.costMicroUsd });
  };
  // What a thinker reported beyond the calls it already charged (one that charges per call leaves nothing).
  const chargeRest = (cost: Cost | null) =>
    cost === null ? Promise.resolve() : charge({ ...cost, costMicroUsd: cost.costMicroUsd - charged });
  const hooks: TaskHooks = { onModelCall: charge };
  const deadline = new AbortController();
  const timer = clock.setTimeout(() => {
    const seconds = limits.deadlineMs / 1000;
    deadline.abort(
      new VigilError(
        'TASK_DEADLINE_PASSED',
        `Task ${task.id} passed its deadline of ${seconds} s and was stopped; what it had not finished is lost.`,
        {
          data: { taskId: task.id, deadlineMs: limits.deadlineMs },
        },
      ),
    );
  }, limits.deadlineMs);
  const runInput = {
    taskId: task.id,
    prompt: task.prompt,
    identity: deps.identity,
    turnId: task.turnId,
    ...(limits.tools.length === 0 ? {} : { tools: limits.tools }),
    maxCostMicroUsd: limits.maxCostMicroUsd,
  };
  let output: SwarmTaskOutput;
  try {
    output = await deps.thinker.runTask(runInput, AbortSignal.any([signal, deadline.signal]), hooks);
  } catch (err) {
    clock.clearTimeout(timer);
    await chargeRest(partialCostOf(err)).catch((recordErr: unknown) =>
      deps.log.error({ err: describeError(recordErr), taskId: task.id }, 'could not record the cost of a failed task'),
    );
    if (signal.aborted) throw err;
    const failure = deadline.signal.aborted ? (deadline.signal.reason as VigilError) : err;
    await deps.swarmResults.recordFirst({
      taskId: task.id,
      status: 'failed',
      text: describeError(failure),
      finishedAt: clock.now(),
    });
    throw failure;
  }
  clock.clearTimeout(timer);
  // A cost that cannot be recorded fails the task with BUDGET_LEDGER_UNAVAILABLE; the heartbeat stops thinking on it.
  await chargeRest(output);
  const outcome = await deps.swarmResults.recordFirst({
    taskId: task.id,
    status: 'done',
    text: output.text,
    finishedAt: clock.now(),
  });
  // An operator's cancel was recorded first: that is the task's outcome, whatever it produced after.
  if (outcome.status !== 'done')
    throw new VigilError('THINK_ABORTED', `Task ${task.id} was ${outcome.status} before it finished.`);
  return output;
});

/**
 * Fails a task that already ran and made a call to a non-idempotent tool (its outcome recorded first, and
 * `swarm.task_interrupted` emitted), so its calls are never repeated by running it again. Boot does the same for a
 * crash; this covers a task the heartbeat itself stopped and re-queued.
 */
async function refuseRerunAfterActing(deps: HeartbeatDeps, task: SwarmTask): Promise<void> {
  if (deps.toolCalls === undefined || (await deps.swarmTasks.get(task))?.startedAt === undefined) return;
  const calls = (await deps.toolCalls.all()).filter((call) => call.taskId === task.id);
  if (!actedNonIdempotently(calls)) return;
  const text = interruptedText(task.id, calls);
  const outcome = await deps.swarmResults.recordFirst({
    taskId: task.id,
    status: 'failed',
    text,
    finishedAt: deps.clock.now(),
  });
  if (outcome.status === 'failed' && outcome.text === text) {
    deps.bus.emit('swarm.task_interrupted', {
      taskId: task.id,
      turnId: task.turnId,
      outcome: 'failed',
      callIds: calls.map((call) => call.callId),
    });
  }
  throw new VigilError('TASK_INTERRUPTED', outcome.text, { data: { taskId: task.id } });
}
