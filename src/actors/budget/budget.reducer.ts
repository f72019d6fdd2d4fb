/** The budget reducer: charges, top-ups, caps, day roll-over and sleep/wake, pure and total; and its selectors. */
import { dayEndIn, dayKeyIn } from './budget-calendar.js';
import type { BudgetEvent, BudgetLimits, BudgetState } from './budget.schema.js';

/** A budget for the day of `at` in `timezone` with nothing spent. */
export function initialBudgetState(at: number, timezone: string, dailyCapMicroUsd: number): BudgetState {
  return {
    timezone,
    dayKey: dayKeyIn(timezone, at),
    dailyCapMicroUsd,
    topUpMicroUsd: 0,
    spentTodayMicroUsd: 0,
    sessionCostMicroUsd: 0,
    sleeping: false,
    exceeded: false,
    windDownNotified: false,
    wakeRequested: false,
    updatedAt: at,
  };
}

/** Today's allowance: the cap plus today's top-ups. */
export function allowanceMicroUsd(state: BudgetState): number {
  return state.dailyCapMicroUsd + state.topUpMicroUsd;
}

/** Spend as a percent of today's allowance (no allowance but some spend: infinite). */
export function budgetPct(state: BudgetState): number {
  const allowance = allowanceMicroUsd(state);
  if (allowance === 0) return state.spentTodayMicroUsd > 0 ? Number.POSITIVE_INFINITY : 0;
  return (state.spentTodayMicroUsd * 100) / allowance;
}

/** Where spend stands against the thresholds, ignoring sleep. */
export function spendLevel(state: BudgetState, limits: BudgetLimits): 'ok' | 'winding_down' | 'exceeded' {
  const pct = budgetPct(state);
  if (pct >= limits.hardStopPct) return 'exceeded';
  if (pct >= limits.windDownPct) return 'winding_down';
  return 'ok';
}

/** The `budget.status` state (CONTRACT §4). */
export function budgetStatusState(
  state: BudgetState,
  limits: BudgetLimits,
): 'ok' | 'winding_down' | 'sleeping' | 'exceeded' {
  if (state.exceeded) return 'exceeded';
  if (state.sleeping) return 'sleeping';
  return spendLevel(state, limits);
}

/** True when `at` falls on a later local day than the state's. */
export function isNewDay(state: BudgetState, at: number): boolean {
  return at >= dayEndIn(state.timezone, state.dayKey);
}

/** When the state's day ends: the next local midnight, when spend resets. */
export function resetsAt(state: BudgetState): number {
  return dayEndIn(state.timezone, state.dayKey);
}

function rollDay(state: BudgetState, at: number): BudgetState {
  const dayKey = dayKeyIn(state.timezone, at);
  // Only forward: a clock stepping back never hands yesterday's money back.
  if (dayKey <= state.dayKey) return state;
  return {
    ...state,
    dayKey,
    topUpMicroUsd: 0,
    spentTodayMicroUsd: 0,
    exceeded: false,
    windDownNotified: false,
    updatedAt: at,
  };
}

/** The budget reducer: pure and total. */
export function budgetReducer(state: BudgetState, event: BudgetEvent): BudgetState {
  switch (event.type) {
    case 'budget.charge': {
      const rolled = rollDay(state, event.at);
      if (event.costMicroUsd === 0) return rolled;
      return {
        ...rolled,
        spentTodayMicroUsd: rolled.spentTodayMicroUsd + event.costMicroUsd,
        sessionCostMicroUsd: rolled.sessionCostMicroUsd + event.costMicroUsd,
        updatedAt: Math.max(rolled.updatedAt, event.at),
      };
    }
    case 'budget.roll_day':
      return rollDay(state, event.at);
    case 'budget.top_up': {
      const rolled = rollDay(state, event.at);
      return {
        ...rolled,
        topUpMicroUsd: rolled.topUpMicroUsd + event.amountMicroUsd,
        exceeded: false,
        windDownNotified: false,
        wakeRequested: rolled.sleeping || rolled.exceeded,
        updatedAt: Math.max(rolled.updatedAt, event.at),
      };
    }
    case 'budget.set_cap':
      return { ...state, dailyCapMicroUsd: event.capMicroUsd, updatedAt: Math.max(state.updatedAt, event.at) };
    case 'budget.wind_down_notified':
      return state.windDownNotified ? state : { ...state, windDownNotified: true };
    case 'budget.sleep':
      return {
        ...state,
        sleeping: true,
        exceeded: state.exceeded || event.exceeded,
        updatedAt: Math.max(state.updatedAt, event.at),
      };
    case 'budget.wake':
      // A new allowance begins: the session's cost and the wrap-up notice start over.
      return {
        ...rollDay(state, event.at),
        sleeping: false,
        exceeded: false,
        wakeRequested: false,
        sessionCostMicroUsd: 0,
        windDownNotified: false,
        updatedAt: Math.max(state.updatedAt, event.at),
      };
  }
}
