/** The heartbeat's budget questions as plain functions of its context: the machine's guards are one line each over these. */
import { spendLevel } from '../actors/budget/budget.reducer.js';
import { hardStopReached, sleepAfterBeat, wakeReason } from './budget-gate.js';
import { hasPendingWork } from './heartbeat.actions.js';
import type { HeartbeatContext } from './heartbeat.types.js';

const budgetOf = (context: HeartbeatContext) => context.refs.budget.getSnapshot().context;

/** The budget puts the agent to sleep at the end of this beat (wind-down with nothing pending, or the hard stop). */
export function sleepsAfterBeat(context: HeartbeatContext): boolean {
  return (
    sleepAfterBeat(budgetOf(context), context.deps.options.budgetLimits, { pendingWork: hasPendingWork(context) }) !==
    null
  );
}

/** Spend has reached the hard stop. */
export function atHardStop(context: HeartbeatContext): boolean {
  return hardStopReached(budgetOf(context), context.deps.options.budgetLimits);
}

/** A new local day or a top-up wakes a sleeper now. */
export function wakeDue(context: HeartbeatContext): boolean {
  return wakeReason(budgetOf(context), context.deps.options.budgetLimits, context.deps.clock.now()) !== null;
}

/** There is room in today's allowance to be awake. */
export function roomToWake(context: HeartbeatContext): boolean {
  return spendLevel(budgetOf(context), context.deps.options.budgetLimits) === 'ok';
}

/** At start: asleep, or spent past wind-down with no wake owed. */
export function asleepAtBoot(context: HeartbeatContext): boolean {
  const budget = budgetOf(context);
  if (wakeDue(context)) return false;
  return budget.sleeping || budget.exceeded || spendLevel(budget, context.deps.options.budgetLimits) !== 'ok';
}

/** At start: it was asleep, and a new day or a top-up since then wakes it. */
export function wakeAtBoot(context: HeartbeatContext): boolean {
  const budget = budgetOf(context);
  return (budget.sleeping || budget.exceeded) && wakeDue(context);
}
