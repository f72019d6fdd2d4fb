/** Builds what the thinker sees for one think from the actors' current states. */
import { activeGoals } from '../actors/goals/goals.reducer.js';
import type { SwarmResult, ThinkInput } from '../subsystems/thinking/thinker.schema.js';
import type { LongTermMemory } from '../subsystems/memory/long-term-memory.js';
import { recallForThink } from '../subsystems/memory/memory-recall.js';
import type { BeatPlan } from './beat-plan.js';
import { affectNow, workingMemoryNow } from './decayed-views.js';
import type { DomainActorRefs, TurnState } from './heartbeat.types.js';

/** The think input for `plan`, reading each actor's snapshot once. */
export function buildThinkInput(args: {
  plan: BeatPlan;
  turnId: string;
  refs: DomainActorRefs;
  turns: TurnState;
  identity: string;
  now: number;
  notices?: string[];
  budget?: ThinkInput['budget'];
  handledTurnIds: readonly string[];
  /** Long-term memory to recall from into this think. */
  memory?: LongTermMemory | undefined;
}): ThinkInput {
  const { plan, refs } = args;
  const affect = affectNow(refs, args.now);
  const memory = workingMemoryNow(refs, args.now);
  const goals = refs.goals.getSnapshot().context;
  const swarms = refs.swarms.getSnapshot().context;
  const wanted = new Set(plan.swarmTaskIds);
  const swarmResults: SwarmResult[] = swarms.tasks
    .filter(
      (task) =>
        wanted.has(task.id) && (task.status === 'done' || task.status === 'failed' || task.status === 'cancelled'),
    )
    .map((task) => ({
      taskId: task.id,
      turnId: task.turnId,
      prompt: task.prompt,
      status: task.status === 'done' ? 'done' : task.status === 'cancelled' ? 'cancelled' : 'failed',
      text: task.status === 'done' ? (task.result ?? '') : (task.error ?? task.status),
    }));
  const input: ThinkInput = {
    identity: args.identity,
    reason: plan.reason,
    turnId: args.turnId,
    now: args.now,
    affect: affect.dimensions,
    workingMemory: memory.items,
    goals: activeGoals(goals),
    ...(plan.focusGoalId === undefined ? {} : { focusGoalId: plan.focusGoalId }),
    // The turns this think carries: a user turn's messages (several, when one interrupted another), or the turns
    // whose answer waited on the swarm results it digests.
    pendingMessages: args.turns.pending.filter((m) => args.handledTurnIds.includes(m.turnId)),
    swarmResults,
    notices: args.notices ?? [],
    ...(args.budget === undefined ? {} : { budget: args.budget }),
  };
  if (args.memory === undefined) return input;
  return { ...input, recalledMemories: recallForThink(args.memory, input) };
}
