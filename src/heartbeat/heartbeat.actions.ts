/**
 * The heartbeat's larger steps as plain functions of the context. Each returns a `BeatStep`: the context patch to
 * assign and the effects (events, actor messages, background writes) for the machine to run as actions, so no effect
 * ever runs inside an `assign`.
 */
import { budgetPct, budgetReducer, isNewDay, spendLevel } from '../actors/budget/budget.reducer.js';
import { startableTasks, unconsumedResults } from '../actors/swarms/swarms.reducer.js';
import type { SwarmTask } from '../actors/swarms/swarms.schema.js';
import { describeError } from '../errors.js';
import type { TurnTimersRecord } from '../subsystems/conversation/turn-timers-store.js';
import { adaptiveIntervalMs } from './adaptive-interval.js';
import { affectNow } from './decayed-views.js';
import { planBeat } from './beat-plan.js';
import { wrapUpDue } from './budget-gate.js';
import { readActorStates, snapshotCheckpoint } from './checkpoint-snapshot.js';
import { backedOffIntervalMs, CIRCUIT_FAILURE_THRESHOLD } from './circuit-breaker.js';
import type { BeatProgress, HeartbeatContext, HeartbeatDeps, TurnState } from './heartbeat.types.js';
import type { EventPayload } from '../protocol/events.schema.js';
import {
  beginThink,
  debriefReady,
  DEBRIEF_PROMPT,
  endTurn,
  injectDebrief,
  RESUME_NOTICE,
  WIND_DOWN_NOTICE,
} from './turn-tracker.js';
import { answerableTurns, turnsAwaitingResults, turnsForThink } from './turn-book.js';
import { NO_APPROVAL_WAITS } from '../subsystems/tools/approval-waits.js';

/** A step of the beat: the patch to assign, then the effects to run, in order. */
export interface BeatStep {
  patch: Partial<HeartbeatContext>;
  effects: Array<() => void>;
}

const NO_EFFECTS: Array<() => void> = [];
const NO_TASKS: SwarmTask[] = [];

/** `effects` with `effect` added, allocating the list on the first one (no closure per beat: the idle path stays lean). */
function withEffect(effects: Array<() => void>, effect: () => void): Array<() => void> {
  if (effects === NO_EFFECTS) return [effect];
  effects.push(effect);
  return effects;
}

/** A beat with nothing done yet. */
export function idleBeat(startedAtPerf: number): BeatProgress {
  return {
    startedAtPerf,
    senseMs: 0,
    thinkMs: 0,
    integrateMs: 0,
    failed: false,
    preempted: false,
    plan: null,
    turnId: null,
    handledTurnIds: [],
    result: null,
    failure: null,
    preempt: null,
    notices: [],
    budgetLine: null,
    senseEffects: NO_EFFECTS,
    probeLedger: false,
    review: null,
  };
}

/** Milliseconds of the beat in progress not yet attributed to an earlier phase. */
export function phaseElapsed(context: HeartbeatContext): number {
  const { beat } = context;
  return Math.max(0, performance.now() - beat.startedAtPerf - beat.senseMs - beat.thinkMs);
}

/** Writes the turn timers to their store without holding up the beat (the checkpoint carries them too). */
export function persistTurn(deps: HeartbeatDeps, turns: TurnState): void {
  const record: TurnTimersRecord = {
    lastMessageAt: turns.lastMessageAt,
    lastDebriefAt: turns.lastDebriefAt,
    turnStartedAt: turns.turnStartedAt,
    turnInProgress: turns.turnInProgress,
  };
  deps.turnTimers
    .record(record)
    .catch((err: unknown) => deps.log.error({ err: describeError(err) }, 'could not record the turn timers'));
}

/**
 * Sense: roll the budget day, decide what (if anything) to think about, and open the turn it belongs to; the patch's
 * beat carries the effects to run next (`senseEffects`). With the ledger down nothing thinks, and `beat.probeLedger`
 * asks the machine to try one small write to see if it is back.
 */
export function sense(context: HeartbeatContext): Partial<HeartbeatContext> {
  const startedAtPerf = performance.now();
  const { deps, refs } = context;
  const { clock, ids, options, bus } = deps;
  const now = clock.now();
  const beatCount = context.beatCount + 1;
  // Allocated only when there is an effect: an idle beat, the common case, has none.
  let effects: Array<() => void> = NO_EFFECTS;
  let budget = refs.budget.getSnapshot().context;
  if (isNewDay(budget, now)) {
    // Planned on the rolled state now; the actor gets the same event as an effect.
    const roll = { type: 'budget.roll_day' as const, at: now };
    budget = budgetReducer(budget, roll);
    effects = withEffect(effects, () => refs.budget.send(roll));
  }
  if (context.ledger.down) {
    const probeLedger = !context.ledger.probing;
    const ledger = probeLedger ? { ...context.ledger, probing: true } : context.ledger;
    const beat = {
      ...idleBeat(startedAtPerf),
      senseMs: performance.now() - startedAtPerf,
      senseEffects: effects,
      probeLedger,
    };
    return { beatCount, beat, wakeRequested: false, ledger };
  }
  // Credentials refused: nothing thinks until the retry time; messages wait (they are not failed for a bad key).
  if (context.thinkerPause !== null && now < context.thinkerPause.retryAt) {
    const beat = { ...idleBeat(startedAtPerf), senseMs: performance.now() - startedAtPerf, senseEffects: effects };
    return { beatCount, beat, wakeRequested: false };
  }
  const plan = planBeat({
    now,
    beatCount,
    pending:
      context.turns.pending.length === 0 ? context.turns.pending : answerableTurns(context.turns, approvalWaits(deps)),
    goals: refs.goals.getSnapshot().context,
    swarms: refs.swarms.getSnapshot().context,
    lastGoalWorkBeat: context.lastGoalWorkBeat,
    goalWorkEveryBeats: options.goalWorkEveryBeats,
    debriefReady: debriefReady(context.turns, now),
    autonomyAllowed: spendLevel(budget, options.budgetLimits) === 'ok',
    deferred: context.deferred,
  });
  const beat = idleBeat(startedAtPerf);
  let turns = context.turns;
  if (plan !== null) {
    beat.plan = plan;
    beat.turnId = plan.turnId ?? `auto-${ids.next()}`;
    beat.preempt = new AbortController();
    if (plan.reason === 'user_message') beat.handledTurnIds = turnsForThink(turns, approvalWaits(deps));
    if (plan.reason === 'swarm_results')
      beat.handledTurnIds = turnsAwaitingResults(turns, resultTurnIds(refs, plan.swarmTaskIds));
    if (plan.reason === 'debrief') {
      // The turn under review: from its start (or the last debrief, whichever is later) to now.
      beat.review = {
        from: Math.max(
          turns.turnStartedAt ?? turns.lastMessageAt ?? now,
          turns.lastDebriefAt ?? Number.NEGATIVE_INFINITY,
        ),
        to: now,
      };
      turns = { ...turns, ...injectDebrief(turns, now) };
      const turnId = beat.turnId;
      effects = withEffect(effects, () => bus.emit('agent.debrief', { turnId }));
    } else {
      // A user turn began when its first message arrived; autonomous work begins now.
      const firstMessageAt = plan.reason === 'user_message' ? (turns.pending[0]?.at ?? now) : now;
      turns = { ...turns, ...beginThink(turns, firstMessageAt) };
    }
    if (turns !== context.turns) {
      const opened = turns;
      effects = withEffect(effects, () => persistTurn(deps, opened));
    }
  }
  beat.senseMs = performance.now() - startedAtPerf;
  beat.senseEffects = effects;
  const patch: Partial<HeartbeatContext> = {
    beatCount,
    beat,
    turns,
    wakeRequested: false,
    lastGoalWorkBeat: plan?.reason === 'goal_work' ? beatCount : context.lastGoalWorkBeat,
  };
  if (plan?.resumed === true) patch.deferred = null;
  return patch;
}

/** The notices and budget line for this beat's think; telling the agent to wrap up marks (as an effect) that it was told. */
export function prepareThink(context: HeartbeatContext): BeatStep {
  const { refs, deps } = context;
  const budget = refs.budget.getSnapshot().context;
  const notices: string[] = [];
  const effects: Array<() => void> = [];
  if (context.beat.plan?.reason === 'debrief') notices.push(DEBRIEF_PROMPT);
  if (context.beat.plan?.resumed === true) notices.push(RESUME_NOTICE);
  if (wrapUpDue(budget, deps.options.budgetLimits)) {
    notices.push(WIND_DOWN_NOTICE);
    const told = { type: 'budget.wind_down_notified' as const, at: deps.clock.now() };
    effects.push(() => refs.budget.send(told));
  }
  const budgetLine = {
    spentTodayUsd: budget.spentTodayMicroUsd / 1_000_000,
    dailyCapUsd: (budget.dailyCapMicroUsd + budget.topUpMicroUsd) / 1_000_000,
    pct: Math.min(budgetPct(budget), 1e9),
  };
  // Sense's effects run here for a beat that thinks (and are spent, so finishBeat does not run them again).
  const senseEffects = context.beat.senseEffects;
  if (senseEffects.length > 0) effects.unshift(...senseEffects);
  return { patch: { beat: { ...context.beat, notices, budgetLine, senseEffects: NO_EFFECTS } }, effects };
}

/** True while there is work the current turn still has to do (messages to answer, results to digest). */
export function hasPendingWork(context: HeartbeatContext): boolean {
  return context.turns.pending.length > 0 || unconsumedResults(context.refs.swarms.getSnapshot().context).length > 0;
}

/**
 * The end of a beat: circuit breaker, swarm tasks to start, turn end and debrief, the next interval, a checkpoint
 * when due, and `heartbeat.beat`. `startTasks` lists the swarm tasks the machine spawns (marked started first).
 */
export function finishBeat(context: HeartbeatContext): BeatStep & {
  startTasks: SwarmTask[];
  beatEvent: EventPayload<'heartbeat.beat'>;
} {
  const { deps, refs, beat } = context;
  const now = deps.clock.now();
  // Allocated only when there is an effect besides `heartbeat.beat`: an idle beat has none.
  let effects: Array<() => void> = NO_EFFECTS;
  const failed = beat.failed;
  // Only a beat that did its work resets the count: idle beats between paced thinks must not, or a failing API
  // (a bad key) would be retried every few beats forever, never tripping the breaker.
  const consecutiveFailures = failed
    ? context.consecutiveFailures + 1
    : beat.plan !== null
      ? 0
      : context.consecutiveFailures;
  if (failed && consecutiveFailures === CIRCUIT_FAILURE_THRESHOLD) {
    const intervalMs = context.intervalMs;
    effects = withEffect(effects, () => deps.bus.emit('heartbeat.circuit_open', { consecutiveFailures, intervalMs }));
  } else if (consecutiveFailures === 0 && context.consecutiveFailures >= CIRCUIT_FAILURE_THRESHOLD) {
    const afterFailures = context.consecutiveFailures;
    effects = withEffect(effects, () => deps.bus.emit('heartbeat.circuit_closed', { afterFailures }));
  }
  const startable = startableTasks(refs.swarms.getSnapshot().context);
  const startTasks = startable.length === 0 ? NO_TASKS : startable;
  let turns = context.turns;
  // A turn ends at a completed think that leaves nothing to do; a failed or preempted one goes on.
  if (beat.result !== null && !failed && !beat.preempted && !hasPendingWork(context)) {
    turns = { ...turns, ...endTurn(turns, now, deps.options.debriefAfterMs) };
    const ended = turns;
    effects = withEffect(effects, () => persistTurn(deps, ended));
  }
  const intervalMs = adaptiveIntervalMs({
    baseMs: deps.options.beatMs,
    minMs: deps.options.beatMinMs,
    maxMs: deps.options.beatMaxMs,
    now,
    lastUserActivityAt: context.lastUserActivityAt,
    idleSince: context.startedAt,
    arousal: affectNow(refs, now).dimensions.arousal,
  });
  const lastGood = failed ? context.lastGood : readActorStates(refs);
  const integrateMs = phaseElapsed(context);
  if (deps.checkpoints.isDue(context.beatCount)) {
    const next = { ...context, consecutiveFailures, intervalMs, lastGood, turns };
    effects = withEffect(effects, () =>
      deps.checkpoints.saveInBackground(snapshotCheckpoint(next, deps.checkpoints.newId(), 'integrate')),
    );
  }
  const beatEvent = {
    beatCount: context.beatCount,
    intervalMs: backedOffIntervalMs(intervalMs, consecutiveFailures),
    phaseMs: { sense: roundMs(beat.senseMs), think: roundMs(beat.thinkMs), integrate: roundMs(integrateMs) },
  };
  // Turns still open after a think that did its work (more than one think carries, or a try left) go on at once.
  const wakeRequested =
    context.wakeRequested || (!failed && beat.plan !== null && answerableTurns(turns, approvalWaits(deps)).length > 0);
  const patch = { consecutiveFailures, intervalMs, lastGood, turns, wakeRequested, beat: { ...beat, integrateMs } };
  return { patch, effects, startTasks, beatEvent };
}

/** A phase's time to the microsecond: performance.now() differences carry float noise (0.020869999998467392). */
function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** The turns whose tool call waits for an operator (none without approvals). */
export function approvalWaits(deps: HeartbeatDeps): ReadonlySet<string> {
  return deps.approvals?.waitingTurnIds() ?? NO_APPROVAL_WAITS;
}

/** The user turns the finished tasks `taskIds` were started for. */
function resultTurnIds(refs: HeartbeatContext['refs'], taskIds: readonly string[]): string[] {
  return refs.swarms
    .getSnapshot()
    .context.tasks.filter((task) => taskIds.includes(task.id))
    .map((task) => task.turnId);
}
