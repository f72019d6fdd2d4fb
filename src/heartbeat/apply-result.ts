/** The integrate phase's work for a think result: apply each action to its actor, log replies, emit events. */
import type { ThinkResult } from '../subsystems/thinking/thinker.schema.js';
import type { BeatPlan } from './beat-plan.js';
import type { DomainActorRefs, HeartbeatDeps } from './heartbeat.types.js';

/** What applying a result changed in the turn state. */
export interface ApplyOutcome {
  /** User turns answered (their pending messages are done). */
  answeredTurnIds: string[];
  replies: number;
}

/** Inputs of one apply. */
export interface ApplyInput {
  deps: HeartbeatDeps;
  refs: DomainActorRefs;
  plan: BeatPlan;
  turnId: string;
  result: ThinkResult;
  /** The user turns whose messages this think was given. */
  handledTurnIds: string[];
}

/** Applies the actions in order. Replies are appended to the conversation log (sync) before they are announced. */
export async function applyThinkResult({ deps, refs, plan, turnId, result, handledTurnIds }: ApplyInput): Promise<ApplyOutcome> {
  const { clock, bus, ids } = deps;
  const answered = new Set<string>();
  let replies = 0;
  for (const action of result.actions) {
    const at = clock.now();
    switch (action.type) {
      case 'reply': {
        await deps.conversation.append({ turnId: action.turnId, role: 'assistant', text: action.text, at });
        bus.emit('agent.reply', { turnId: action.turnId, text: action.text });
        answered.add(action.turnId);
        replies += 1;
        break;
      }
      case 'remember': {
        const id = `m-${ids.next()}`;
        const before = refs.workingMemory.getSnapshot().context.items;
        refs.workingMemory.send({ type: 'memory.admit', at, item: { id, content: action.content, salience: action.salience } });
        const after = refs.workingMemory.getSnapshot().context.items;
        if (after.some((item) => item.id === id)) {
          const evicted = before.find((item) => !after.some((kept) => kept.id === item.id));
          bus.emit('memory.admitted', { itemId: id, salience: action.salience, evictedId: evicted?.id ?? null });
        }
        break;
      }
      case 'feel':
        refs.affect.send({
          type: 'affect.appraise',
          at,
          delta: action.delta,
          ...(action.intensity === undefined ? {} : { intensity: action.intensity }),
        });
        break;
      case 'goal_add': {
        const id = `g-${ids.next()}`;
        refs.goals.send({
          type: 'goal.add',
          at,
          goal: {
            id,
            title: action.title,
            ...(action.priority === undefined ? {} : { priority: action.priority }),
            ...(action.dueAt === undefined ? {} : { dueAt: action.dueAt }),
          },
        });
        const goal = refs.goals.getSnapshot().context.goals.find((g) => g.id === id);
        if (goal) bus.emit('goal.added', { goalId: id, title: goal.title, priority: goal.priority });
        break;
      }
      case 'goal_progress':
      case 'goal_complete': {
        const event =
          action.type === 'goal_progress'
            ? { type: 'goal.progress' as const, at, id: action.goalId, delta: action.delta }
            : { type: 'goal.complete' as const, at, id: action.goalId };
        refs.goals.send(event);
        const goal = refs.goals.getSnapshot().context.goals.find((g) => g.id === action.goalId);
        if (goal) bus.emit('goal.updated', { goalId: goal.id, progress: goal.progress, status: goal.status });
        break;
      }
      case 'spawn_task': {
        const id = `task-${ids.next()}`;
        refs.swarms.send({ type: 'swarm.spawn', at, task: { id, turnId, prompt: action.prompt } });
        bus.emit('swarm.task_spawned', { taskId: id, turnId });
        break;
      }
    }
  }
  if (plan.swarmTaskIds.length > 0) {
    refs.swarms.send({ type: 'swarm.consumed', at: clock.now(), ids: plan.swarmTaskIds });
  }
  // Every message this think saw is handled, whether or not the thinker chose to reply to each.
  for (const turn of handledTurnIds) answered.add(turn);
  return { answeredTurnIds: [...answered], replies };
}
