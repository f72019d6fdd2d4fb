/** The inputs of the think and settle actors, computed from the context of a beat whose sense planned a think. */
import type { InputFrom } from 'xstate';
import { VigilError } from '../errors.js';
import type { BeatPlan } from './beat-plan.js';
import type { BeatProgress, HeartbeatContext } from './heartbeat.types.js';
import type { thinkLogic } from './phase-actors.js';
import type { SettleInput } from './settle-think.js';
import { buildThinkInput } from './think-input.js';

/** The think sense planned for this beat: what it is about, its turn and the controller that preempts it. */
interface PlannedThink {
  plan: BeatPlan;
  turnId: string;
  preempt: AbortController;
}

/** The beat's planned think. Sense sets all three together and the machine thinks only with a plan (`hasPlan`). */
function plannedThink(beat: BeatProgress): PlannedThink {
  const { plan, turnId, preempt } = beat;
  if (plan === null || turnId === null || preempt === null) {
    throw new VigilError(
      'INTERNAL',
      'The heartbeat reached think or integrate on a beat whose sense planned no think.',
    );
  }
  return { plan, turnId, preempt };
}

/** The think actor's input: what the thinker is shown, and the signal a user message preempts it by. */
export function thinkActorInput(context: HeartbeatContext): InputFrom<typeof thinkLogic> {
  const { deps, beat } = context;
  const { plan, turnId, preempt } = plannedThink(beat);
  return {
    deps,
    preemptSignal: preempt.signal,
    review: beat.review,
    thinkInput: buildThinkInput({
      plan,
      turnId,
      refs: context.refs,
      turns: context.turns,
      handledTurnIds: beat.handledTurnIds,
      identity: deps.identity,
      now: deps.clock.now(),
      notices: beat.notices,
      ...(beat.budgetLine === null ? {} : { budget: beat.budgetLine }),
      memory: deps.memory,
    }),
  };
}

/** The settle actor's input: the think's outcome and the turns it carried. */
export function settleActorInput(context: HeartbeatContext): SettleInput {
  const { deps, beat } = context;
  const { plan, turnId } = plannedThink(beat);
  return {
    deps,
    refs: context.refs,
    closer: deps.closer,
    plan,
    turnId,
    turns: context.turns,
    carried: beat.handledTurnIds,
    result: beat.result,
    failure: beat.failure,
  };
}
