/** The heartbeat's promise actors: one think, settling it, and one swarm sub-agent task. */
import { fromPromise } from 'xstate';
import { describeError } from '../errors.js';
import type { ThinkInput, ThinkResult } from '../subsystems/thinking/thinker.schema.js';
import { settleThink, type SettleInput, type SettleOutcome } from './settle-think.js';
import { budgetRefOf, partialCostOf, recordCost } from './cost-recorder.js';
import type { HeartbeatDeps } from './heartbeat.types.js';
import { thinkStart, traceThink } from './think-trace.js';
import { DEFAULT_CONTEXT_TOKENS } from '../subsystems/thinking/context-defaults.js';
import { recallMessagesForThink } from '../subsystems/memory/memory-recall.js';

/**
 * One think. Its cost is in the ledger before the result is returned (and so before it is applied). A think that
 * fails or is aborted (preemption, hard stop) still records what its finished API calls cost; its actions are dropped.
 * It is shown the conversation (summary and recent turns) read here, off the machine, and older messages recalled by
 * their words; once it has paid, its work is
 * logged for a later debrief and the summary is brought up to date in the background, never delaying the reply.
 */
export const thinkLogic = fromPromise<
  ThinkResult,
  {
    deps: HeartbeatDeps;
    thinkInput: ThinkInput;
    preemptSignal: AbortSignal;
    review?: { from: number; to: number } | null;
  }
>(async ({ input, signal: stopSignal, system }) => {
  const { deps } = input;
  // Stopped (hard stop, daemon stopping) or preempted by a user message: either way the thinker yields at once.
  const signal = AbortSignal.any([stopSignal, input.preemptSignal]);
  const review = input.review ?? null;
  const start = thinkStart(deps);
  // Only a debrief reads the store on its way to the model; the conversation comes from memory.
  const shown = withPast(deps, input.thinkInput);
  const past = mayRecallMessages(deps, shown) ? await withRecalledMessages(deps, shown) : shown;
  const thinkInput = review === null ? past : await withReview(deps, past, review);
  // The memories recalled into it are in use: retention counts them as fresh (written at most once a day each).
  const recalled = thinkInput.recalledMemories ?? [];
  if (recalled.length > 0)
    deps.memory?.noteRecalled(
      recalled.map((memory) => memory.id),
      thinkInput.now,
    );
  let result: ThinkResult;
  try {
    result = await deps.thinker.think(thinkInput, signal);
  } catch (err) {
    const partial = partialCostOf(err);
    if (partial !== null) {
      await recordCost(deps, budgetRefOf(system), 'think', partial).catch((recordErr: unknown) =>
        deps.log.error({ err: describeError(recordErr) }, 'could not record the cost of a failed think'),
      );
    }
    await traceThink(deps, thinkInput, start, { error: err });
    throw err;
  }
  try {
    await recordCost(deps, budgetRefOf(system), 'think', result);
  } catch (err) {
    await traceThink(deps, thinkInput, start, { error: err, result });
    throw err;
  }
  // Stored before the result is applied, so a think's trace exists once its replies do.
  await traceThink(deps, thinkInput, start, { result });
  afterThink(deps, budgetRefOf(system), thinkInput.turnId, result);
  return result;
});

/** The think's input with its bound and the conversation it is shown, when the runtime keeps one. */
function withPast(deps: HeartbeatDeps, input: ThinkInput): ThinkInput {
  const { context, options } = deps;
  const bound = options.contextTokens === undefined ? {} : { contextTokens: options.contextTokens };
  if (context === undefined) return { ...input, ...bound };
  return { ...input, ...bound, conversation: context.conversation(options.contextTokens ?? DEFAULT_CONTEXT_TOKENS) };
}

/** Whether older messages could be recalled for `input`: some message has left its recent conversation. */
function mayRecallMessages(deps: HeartbeatDeps, input: ThinkInput): boolean {
  const search = deps.conversationSearch;
  if (search === undefined) return false;
  return search.canRecall(new Set((input.conversation?.recent ?? []).map((m) => m.seq)));
}

/**
 * The input with the older messages recalled for it (those that left its recent conversation), when the runtime keeps
 * a conversation search. A failed read costs only the recall: the think goes on without it.
 */
async function withRecalledMessages(deps: HeartbeatDeps, input: ThinkInput): Promise<ThinkInput> {
  const search = deps.conversationSearch;
  if (search === undefined) return input;
  try {
    const recalledMessages = await recallMessagesForThink(search, input);
    return recalledMessages.length === 0 ? input : { ...input, recalledMessages };
  } catch (err) {
    deps.log.warn({ err: describeError(err) }, 'could not recall older messages into a think; it goes on without them');
    return input;
  }
}

/** A debrief's input with the turn it validates. */
async function withReview(
  deps: HeartbeatDeps,
  input: ThinkInput,
  review: { from: number; to: number },
): Promise<ThinkInput> {
  if (deps.context === undefined) return input;
  return { ...input, turnUnderReview: await deps.context.review(review.from, review.to) };
}

/** The think's own tool calls to the work log, and a summary update if one is due; neither holds up the beat. */
function afterThink(
  deps: HeartbeatDeps,
  budget: ReturnType<typeof budgetRefOf>,
  turnId: string,
  result: ThinkResult,
): void {
  const { context } = deps;
  if (context === undefined) return;
  context.recordWork(turnId, deps.clock.now(), result.actions);
  context.requestSummaryUpdate(async (update) => {
    // The extractive summary calls no model: there is nothing to charge.
    if (update.costMicroUsd === 0 && update.usage.inputTokens + update.usage.outputTokens === 0) return;
    await recordCost(deps, budget, 'summary', update);
  });
}

/** Settles a think: its actions, replies and the endings of the turns it carried. */
export const settleLogic = fromPromise<SettleOutcome, SettleInput>(({ input }) => settleThink(input));

// The swarm task actor lives in its own file; re-exported here beside the other phase actors.
export { swarmTaskLogic, type SwarmTaskActorInput } from './swarm-task.actor.js';

/** One small write to the ledger, to see whether it is writable again; done or error comes back to the heartbeat. */
export const ledgerProbeLogic = fromPromise<void, { deps: HeartbeatDeps }>(async ({ input }) => {
  await input.deps.ledger.probe(input.deps.clock.now());
});
