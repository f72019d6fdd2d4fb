/** The heartbeat's promise actors: one think, settling it, and one swarm sub-agent task. */
import { fromPromise } from 'xstate';
import { describeError } from '../errors.js';
import type { ThinkInput, ThinkResult } from '../subsystems/thinking/thinker.schema.js';
import { settleThink, type SettleInput, type SettleOutcome } from './settle-think.js';
import { budgetRefOf, partialCostOf, recordCost } from './cost-recorder.js';
import type { HeartbeatDeps } from './heartbeat.types.js';
import { thinkStart, traceThink } from './think-trace.js';

/**
 * One think. Its cost is in the ledger before the result is returned (and so before it is applied). A think that
 * fails or is aborted (preemption, hard stop) still records what its finished API calls cost; its actions are dropped.
 */
export const thinkLogic = fromPromise<ThinkResult, { deps: HeartbeatDeps; thinkInput: ThinkInput; preemptSignal: AbortSignal }>(
  async ({ input, signal: stopSignal, system }) => {
    const { deps } = input;
    // Stopped (hard stop, daemon stopping) or preempted by a user message: either way the thinker yields at once.
    const signal = AbortSignal.any([stopSignal, input.preemptSignal]);
    const start = thinkStart(deps);
    let result: ThinkResult;
    try {
      result = await deps.thinker.think(input.thinkInput, signal);
    } catch (err) {
      const partial = partialCostOf(err);
      if (partial !== null) {
        await recordCost(deps, budgetRefOf(system), 'think', partial).catch((recordErr: unknown) =>
          deps.log.error({ err: describeError(recordErr) }, 'could not record the cost of a failed think'),
        );
      }
      await traceThink(deps, input.thinkInput, start, { error: err });
      throw err;
    }
    try {
      await recordCost(deps, budgetRefOf(system), 'think', result);
    } catch (err) {
      await traceThink(deps, input.thinkInput, start, { error: err, result });
      throw err;
    }
    // Stored before the result is applied, so a think's trace exists once its replies do.
    await traceThink(deps, input.thinkInput, start, { result });
    return result;
  },
);

/** Settles a think: its actions, replies and the endings of the turns it carried. */
export const settleLogic = fromPromise<SettleOutcome, SettleInput>(({ input }) => settleThink(input));

// The swarm task actor lives in its own file; re-exported here beside the other phase actors.
export { swarmTaskLogic, type SwarmTaskActorInput } from './swarm-task.actor.js';

/** One small write to the ledger, to see whether it is writable again; done or error comes back to the heartbeat. */
export const ledgerProbeLogic = fromPromise<void, { deps: HeartbeatDeps }>(async ({ input }) => {
  await input.deps.ledger.probe(input.deps.clock.now());
});
