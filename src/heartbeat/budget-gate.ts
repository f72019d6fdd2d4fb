/** When the budget puts the heartbeat to sleep or wakes it (seeds 000–002), pure. */
import { isNewDay, spendLevel } from '../actors/budget/budget.reducer.js';
import type { BudgetLimits, BudgetState } from '../actors/budget/budget.schema.js';

/** Why the agent goes to sleep. */
export type SleepReason = 'budget_exceeded' | 'budget_wind_down';

/** Whether to sleep at the end of this beat: at the hard stop at once; at wind-down once the turn's work is done. */
export function sleepAfterBeat(
  budget: BudgetState,
  limits: BudgetLimits,
  work: { pendingWork: boolean },
): { reason: SleepReason; exceeded: boolean } | null {
  const level = spendLevel(budget, limits);
  if (level === 'exceeded') return { reason: 'budget_exceeded', exceeded: true };
  // Winding down: one more think (with the wrap-up notice) finishes pending work, then sleep.
  if (level === 'winding_down' && (budget.windDownNotified || !work.pendingWork)) {
    return { reason: 'budget_wind_down', exceeded: false };
  }
  return null;
}

/** True when this think must carry the wrap-up notice (winding down and not yet told). */
export function wrapUpDue(budget: BudgetState, limits: BudgetLimits): boolean {
  return spendLevel(budget, limits) === 'winding_down' && !budget.windDownNotified;
}

/** True when spend has reached the hard stop. */
export function hardStopReached(budget: BudgetState, limits: BudgetLimits): boolean {
  return spendLevel(budget, limits) === 'exceeded';
}

/** Why a sleeping agent wakes now, or null to keep sleeping: a new local day, or a top-up that made room. */
export function wakeReason(budget: BudgetState, limits: BudgetLimits, now: number): 'daily_reset' | 'top_up' | null {
  if (isNewDay(budget, now)) return 'daily_reset';
  if (budget.wakeRequested && spendLevel(budget, limits) === 'ok') return 'top_up';
  return null;
}
