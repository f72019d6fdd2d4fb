/**
 * Sleeping for the budget and waking from it: the effects the machine runs at boot, at the end of a beat, at the hard
 * stop and on a dormant beat. The decisions themselves are pure, in `budget-gate.ts`.
 */
import type { ActorRefFrom } from 'xstate';
import type { budgetLogic } from '../actors/budget/budget.actor.js';
import { resetsAt, spendLevel } from '../actors/budget/budget.reducer.js';
import { describeError } from '../errors.js';
import { sleepAfterBeat, wakeReason, type SleepReason } from './budget-gate.js';
import { readActorStates, snapshotCheckpoint } from './checkpoint-snapshot.js';
import { hasPendingWork, type BeatStep } from './heartbeat.actions.js';
import type { HeartbeatContext, HeartbeatDeps } from './heartbeat.types.js';

type BudgetRef = ActorRefFrom<typeof budgetLogic>;

/** Puts the budget to sleep and announces it: `agent.budget_exceeded` first at the hard stop, then `agent.sleeping`. */
export function fallAsleep(deps: HeartbeatDeps, budget: BudgetRef, reason: SleepReason): void {
  const now = deps.clock.now();
  const exceeded = reason === 'budget_exceeded';
  budget.send({ type: 'budget.sleep', at: now, exceeded });
  const state = budget.getSnapshot().context;
  if (exceeded) {
    deps.bus.emit('agent.budget_exceeded', {
      spentTodayUsd: state.spentTodayMicroUsd / 1_000_000,
      dailyCapUsd: state.dailyCapMicroUsd / 1_000_000,
    });
  }
  deps.bus.emit('agent.sleeping', { reason, wakeAt: new Date(resetsAt(state)).toISOString() });
}

/** Wakes the budget (a new allowance: session cost resets, the day rolls) and announces it. */
export function wakeUp(deps: HeartbeatDeps, budget: BudgetRef, reason: 'top_up' | 'daily_reset' | 'manual'): void {
  budget.send({ type: 'budget.wake', at: deps.clock.now() });
  deps.bus.emit('agent.waking', { reason });
  deps.ledger
    .clearWakeSignal()
    .catch((err: unknown) => deps.log.error({ err: describeError(err) }, 'could not clear the wake signal'));
}

/** Wakes for whatever is due: a new local day or a top-up. */
export function wakeForDueReason(context: HeartbeatContext): void {
  const budget = context.refs.budget;
  const reason = wakeReason(budget.getSnapshot().context, context.deps.options.budgetLimits, context.deps.clock.now());
  wakeUp(context.deps, budget, reason ?? 'manual');
}

/** Starts asleep: for the hard stop if spend is (or was) past it, else for the wind-down. */
export function fallAsleepAtBoot(context: HeartbeatContext): void {
  const budget = context.refs.budget.getSnapshot().context;
  const exceeded = budget.exceeded || spendLevel(budget, context.deps.options.budgetLimits) === 'exceeded';
  fallAsleep(context.deps, context.refs.budget, exceeded ? 'budget_exceeded' : 'budget_wind_down');
}

/** Sleeps at the end of a beat, for the reason the budget gives. */
export function fallAsleepAfterBeat(context: HeartbeatContext): void {
  const decision = sleepAfterBeat(context.refs.budget.getSnapshot().context, context.deps.options.budgetLimits, {
    pendingWork: hasPendingWork(context),
  });
  fallAsleep(context.deps, context.refs.budget, decision?.reason ?? 'budget_wind_down');
}

/** Sleeps at once at the hard stop: the running tasks (already stopped) go back to the queue for after the sleep. */
export function fallAsleepAtHardStop(context: HeartbeatContext): void {
  context.refs.swarms.send({ type: 'swarm.requeue_running', at: context.deps.clock.now() });
  fallAsleep(context.deps, context.refs.budget, 'budget_exceeded');
}

/** How long a dormant beat waits: the slowest interval, but never past the next local midnight (the wake time). */
export function dormantDelayMs(context: HeartbeatContext): number {
  const budget = context.refs.budget.getSnapshot().context;
  const untilMidnight = resetsAt(budget) - context.deps.clock.now();
  return Math.max(1, Math.min(context.deps.options.beatMaxMs, untilMidnight));
}

/** A dormant beat: the clock of the agent goes on (decay, `heartbeat.beat`, checkpoints) but nothing thinks. */
export function dormantBeat(context: HeartbeatContext): BeatStep {
  const { deps, refs } = context;
  const beatCount = context.beatCount + 1;
  const next = { ...context, beatCount };
  const effects: Array<() => void> = [];
  if (deps.checkpoints.isDue(beatCount)) {
    effects.push(() =>
      deps.checkpoints.saveInBackground(snapshotCheckpoint(next, deps.checkpoints.newId(), 'dormant')),
    );
  }
  const intervalMs = dormantDelayMs(next);
  effects.push(() =>
    deps.bus.emit('heartbeat.beat', { beatCount, intervalMs, phaseMs: { sense: 0, think: 0, integrate: 0 } }),
  );
  return { patch: { beatCount, lastGood: readActorStates(refs) }, effects };
}
