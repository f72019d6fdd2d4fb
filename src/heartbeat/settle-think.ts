/**
 * The integrate phase: settles one think. Its actions go to their actors; its replies, grouped per turn, and the
 * endings of the turns it carried are written by the `TurnCloser` (ending and event in one sync batch) before they
 * count. A think refused for good ends its turns as THINK_REJECTED (by the API) or CONTEXT_TOO_SMALL (by the local
 * bound, before any call), a stuck one as TURN_STUCK; a completed think that left a carried turn unanswered counts one
 * try, and the last try ends it as NO_ANSWER.
 */
import type { TurnEndingCode } from '../protocol/conversation.schema.js';
import type { ThinkAction, ThinkResult } from '../subsystems/thinking/thinker.schema.js';
import type { TurnCloser } from '../subsystems/conversation/turn-closer.js';
import type { SwarmTaskRecord } from '../subsystems/swarm-results/swarm-task-log.js';
import { describeError } from '../errors.js';
import { runDetached } from '../shared/run-detached.js';
import { spawnTask } from './task-spawn.js';
import type { BeatPlan } from './beat-plan.js';
import type { DomainActorRefs, HeartbeatDeps, ThinkFailure, TurnState } from './heartbeat.types.js';

export type { ThinkFailure };
import { countUnanswered, isOpen, MAX_UNANSWERED_THINKS } from './turn-book.js';
import { consolidateMemories, watchWorkingMemory } from './memory-consolidation.js';

/** What settling changed in the turns; the heartbeat applies it to its current turn state. */
export interface SettleOutcome {
  /** Open turns that got their reply. */
  replied: string[];
  /** Open turns that ended without an answer. */
  unanswered: string[];
  /** Carried turns that stay open, one more unanswered think counted on each. */
  missed: string[];
  /** Carried turns this think handed to sub-agent tasks: they wait for the results. */
  awaiting: string[];
}

/** Inputs of one settle. */
export interface SettleInput {
  deps: HeartbeatDeps;
  refs: DomainActorRefs;
  closer: TurnCloser;
  plan: BeatPlan;
  turnId: string;
  /** The turn state when settling began. */
  turns: TurnState;
  /** The user turns whose messages the think was given. */
  carried: readonly string[];
  /** The think's result, or what a preempted think completed before it yielded; null when nothing is usable. */
  result: ThinkResult | null;
  failure: ThinkFailure | null;
}

/** Settles a think: actions (and the long-term memory they and working memory call for, written behind the beat), replies, then the carried turns' endings or tries. */
export async function settleThink(input: SettleInput): Promise<SettleOutcome> {
  const actions = input.result?.actions ?? [];
  const watch = watchWorkingMemory(input.refs);
  const spawned: SwarmTaskRecord[] = [];
  for (const action of actions) {
    if (action.type === 'spawn_task') spawned.push(spawnTask(input.deps, input.refs, input.turnId, action));
    else applyAction(input.deps, input.refs, input.turnId, action);
    watch.observe();
  }
  // Not awaited: what leaves working memory is judged now (synchronously) and its writes are queued on the store
  // before any reply goes out (so a search after the reply sees them), while the synced writes run behind the beat.
  // A throw in the judging must not end the daemon (a bare `void` would leave it unhandled): it is logged.
  runDetached(
    consolidateMemories(input.deps, input.refs, watch, actions, input.plan.reason),
    input.deps.log,
    'consolidating long-term memory',
  );
  return settleTurns(input, spawned);
}

async function settleTurns(input: SettleInput, spawned: readonly SwarmTaskRecord[]): Promise<SettleOutcome> {
  const { deps, closer, plan, turns, carried, result, failure } = input;
  const { refs } = input;
  const { clock, bus } = deps;
  const actions = result?.actions ?? [];
  const replied: string[] = [];
  const writes = new EndingWrites(deps);
  // A reply names an open turn, or goes out under this think's own turn: a closed turn is never answered twice.
  for (const [turnId, text] of repliesByTurn(actions, (id) => (isOpen(turns, id) ? id : input.turnId))) {
    const written = await writes.attempt(turnId, () => closer.reply(turnId, text, clock.now()));
    if (written && isOpen(turns, turnId)) replied.push(turnId);
  }
  // Before the beat ends (tasks start only then): a crash from here on finds the tasks in the log.
  await deps.swarmTasks
    .spawned(spawned)
    .catch((err: unknown) => deps.log.error({ err: describeError(err) }, 'spawned tasks could not be recorded'));
  const spawnedFor =
    actions.some((a) => a.type === 'spawn_task') && isOpen(turns, input.turnId) && !replied.includes(input.turnId);
  const awaiting = failure === null && spawnedFor ? [input.turnId] : [];
  // A turn whose tool call waits for an operator, or whose decision it has yet to hear, has not missed a try.
  const held = deps.approvals?.heldTurnIds();
  // A turn whose ending could not be written stays open without a try counted: the store failed, not the agent.
  const waiting = carried.filter(
    (turnId) =>
      isOpen(turns, turnId) &&
      !replied.includes(turnId) &&
      !awaiting.includes(turnId) &&
      held?.has(turnId) !== true &&
      !writes.failed(turnId),
  );
  const unanswered: string[] = [];
  const end = async (turnIds: readonly string[], code: Exclude<TurnEndingCode, 'TURN_CANCELLED'>, reason: string) => {
    for (const turnId of turnIds) {
      if (await writes.attempt(turnId, () => closer.unanswered(turnId, code, reason, clock.now())))
        unanswered.push(turnId);
    }
  };
  const missedOf = (exhausted: readonly string[]) =>
    waiting.filter((turnId) => !exhausted.includes(turnId) && !writes.failed(turnId));
  if (failure === null) {
    if (plan.swarmTaskIds.length > 0)
      refs.swarms.send({ type: 'swarm.consumed', at: clock.now(), ids: plan.swarmTaskIds });
    const { exhausted } = countUnanswered(turns, waiting);
    const reason = `The agent ended ${MAX_UNANSWERED_THINKS} thinks without answering this message.`;
    await end(exhausted, 'NO_ANSWER', reason);
    return { replied, unanswered, missed: missedOf(exhausted), awaiting };
  }
  // Refused for good, by the API or by the local bound: the same think cannot succeed, so its turns end now; the next
  // message gets a think of its own.
  if (failure.code === 'THINK_REJECTED' || failure.code === 'CONTEXT_TOO_SMALL') {
    await end(waiting, failure.code, failure.reason);
    if (plan.turnId === null) {
      bus.emit('agent.work_dropped', {
        reason: failure.reason,
        work: plan.reason,
        code: failure.code,
        ...(plan.focusGoalId === undefined ? {} : { goalId: plan.focusGoalId }),
      });
    }
  } else if (failure.code === 'THINK_STUCK') {
    // A hung call may pass on another try; a turn stuck on its last try ends.
    const { exhausted } = countUnanswered(turns, waiting);
    await end(exhausted, 'TURN_STUCK', failure.reason);
    return { replied, unanswered, missed: missedOf(exhausted), awaiting };
  }
  return { replied, unanswered, missed: [], awaiting };
}

/**
 * The endings one settle writes. A failed write is logged and leaves its turn open (the closer withdrew its event, so
 * nothing was said): settling goes on, so the endings already written count and are never written twice. Once the
 * store has failed, the endings after it are not tried: their turns stay open for the next think.
 */
class EndingWrites {
  private readonly unwritten = new Set<string>();
  private storeFailed = false;

  constructor(private readonly deps: HeartbeatDeps) {}

  /** Writes one ending; true when it landed. */
  async attempt(turnId: string, write: () => Promise<void>): Promise<boolean> {
    if (!this.storeFailed) {
      try {
        await write();
        return true;
      } catch (err) {
        this.storeFailed = true;
        this.deps.log.error(
          { err: describeError(err), turnId },
          'a turn ending could not be written; the turn stays open',
        );
      }
    }
    this.unwritten.add(turnId);
    return false;
  }

  /** Whether `turnId`'s ending was due but not written. */
  failed(turnId: string): boolean {
    return this.unwritten.has(turnId);
  }
}

/** The think's replies joined per turn, in the order the turns were first answered: one ending per turn, never two. */
function repliesByTurn(actions: readonly ThinkAction[], target: (turnId: string) => string): Map<string, string> {
  const byTurn = new Map<string, string>();
  for (const action of actions) {
    if (action.type !== 'reply') continue;
    const turnId = target(action.turnId);
    const before = byTurn.get(turnId);
    byTurn.set(turnId, before === undefined ? action.text : `${before}\n\n${action.text}`);
  }
  return byTurn;
}

/** Applies one non-reply action to its actor and announces it. */
function applyAction(deps: HeartbeatDeps, refs: DomainActorRefs, turnId: string, action: ThinkAction): void {
  const { clock, bus, ids } = deps;
  const at = clock.now();
  switch (action.type) {
    case 'reply':
      // Replies are grouped per turn and written by the closer.
      break;
    case 'remember': {
      const id = `m-${ids.next()}`;
      const before = refs.workingMemory.getSnapshot().context.items;
      refs.workingMemory.send({
        type: 'memory.admit',
        at,
        item: { id, content: action.content, salience: action.salience },
      });
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
    case 'spawn_task':
      // Spawned by `spawnTask` (task-spawn.ts), which also records it durably.
      break;
  }
}
