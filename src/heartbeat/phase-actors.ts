/** The heartbeat's promise actors: one think, applying its result, and one swarm sub-agent task. */
import { fromPromise } from 'xstate';
import { describeError } from '../errors.js';
import type { SwarmTaskOutput, ThinkInput, ThinkResult } from '../subsystems/thinking/thinker.schema.js';
import { applyThinkResult, type ApplyInput, type ApplyOutcome } from './apply-result.js';
import type { HeartbeatDeps } from './heartbeat.types.js';

/** One think; XState aborts `signal` if the invoking state is left (stop, preemption). */
export const thinkLogic = fromPromise<ThinkResult, { deps: HeartbeatDeps; thinkInput: ThinkInput }>(({ input, signal }) =>
  input.deps.thinker.think(input.thinkInput, signal),
);

/** Applies a think result to the actors and the conversation log. */
export const applyLogic = fromPromise<ApplyOutcome, ApplyInput>(({ input }) => applyThinkResult(input));

/** Input of one swarm task actor. */
export interface SwarmTaskActorInput {
  deps: HeartbeatDeps;
  taskId: string;
  prompt: string;
}

/** Runs one sub-agent task and records its outcome durably before reporting it, so a restore never reruns it. */
export const swarmTaskLogic = fromPromise<SwarmTaskOutput, SwarmTaskActorInput>(async ({ input, signal }) => {
  const { deps, taskId, prompt } = input;
  let output: SwarmTaskOutput;
  try {
    output = await deps.thinker.runTask({ taskId, prompt, identity: deps.identity }, signal);
  } catch (err) {
    // An aborted task (daemon stopping) is not finished: it is re-queued on restore, so record nothing.
    if (!signal.aborted) {
      await deps.swarmResults.record({ taskId, status: 'failed', text: describeError(err), finishedAt: deps.clock.now() });
    }
    throw err;
  }
  await deps.swarmResults.record({ taskId, status: 'done', text: output.text, finishedAt: deps.clock.now() });
  return output;
});
