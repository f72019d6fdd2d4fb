import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BudgetStateSchema,
  budgetLogic,
  budgetPct,
  budgetReducer,
  budgetStatusState,
  initialBudgetState,
  spendLevel,
} from '../../../src/actors/budget/index.js';
import { runActorContract } from '../../contracts/actor.contract.js';

const T0 = Date.parse('2026-03-10T10:00:00Z');
const limits = { windDownPct: 90, hardStopPct: 110 };
const fresh = () => initialBudgetState(T0, 'Europe/Berlin', 1_000_000);

runActorContract({
  name: 'budget',
  logic: budgetLogic,
  stateSchema: BudgetStateSchema,
  initialState: fresh(),
  validEvent: { type: 'budget.charge', at: T0, costMicroUsd: 1500 },
  invalidEvent: { type: 'budget.charge', at: T0, costMicroUsd: -1 },
});

describe('budgetReducer', () => {
  it('adds each charge to today and to the session', () => {
    const s = [300_000, 250_000].reduce(
      (state, cost) => budgetReducer(state, { type: 'budget.charge', at: T0, costMicroUsd: cost }),
      fresh(),
    );
    expect(s).toMatchObject({ spentTodayMicroUsd: 550_000, sessionCostMicroUsd: 550_000 });
    expect(budgetPct(s)).toBeCloseTo(55);
    expect(spendLevel(s, limits)).toBe('ok');
  });

  it('winds down at 90 % and is exceeded at 110 % of the allowance', () => {
    const at90 = budgetReducer(fresh(), { type: 'budget.charge', at: T0, costMicroUsd: 900_000 });
    expect(spendLevel(at90, limits)).toBe('winding_down');
    const at110 = budgetReducer(at90, { type: 'budget.charge', at: T0, costMicroUsd: 200_000 });
    expect(spendLevel(at110, limits)).toBe('exceeded');
  });

  it('starts a new day at local midnight in its zone, keeping the session cost', () => {
    const spent = budgetReducer(fresh(), { type: 'budget.charge', at: T0, costMicroUsd: 950_000 });
    // 23:30 UTC on March 10 is already March 11 in Berlin.
    const next = budgetReducer(spent, { type: 'budget.roll_day', at: Date.parse('2026-03-10T23:30:00Z') });
    expect(next).toMatchObject({ dayKey: '2026-03-11', spentTodayMicroUsd: 0, sessionCostMicroUsd: 950_000 });
  });

  it('never rolls back to an earlier day when the clock steps back', () => {
    const s = budgetReducer(fresh(), { type: 'budget.charge', at: T0, costMicroUsd: 10 });
    expect(budgetReducer(s, { type: 'budget.charge', at: T0 - 86_400_000, costMicroUsd: 5 })).toMatchObject({
      dayKey: '2026-03-10',
      spentTodayMicroUsd: 15,
    });
  });

  it('raises today’s allowance on a top-up and asks a sleeping agent to wake', () => {
    let s = budgetReducer(fresh(), { type: 'budget.charge', at: T0, costMicroUsd: 1_150_000 });
    s = budgetReducer(s, { type: 'budget.sleep', at: T0, exceeded: true });
    expect(budgetStatusState(s, limits)).toBe('exceeded');
    s = budgetReducer(s, { type: 'budget.top_up', at: T0, amountMicroUsd: 1_000_000 });
    expect(s).toMatchObject({ topUpMicroUsd: 1_000_000, wakeRequested: true, exceeded: false });
    expect(budgetPct(s)).toBeCloseTo(57.5);
    s = budgetReducer(s, { type: 'budget.wake', at: T0 });
    expect(s).toMatchObject({ sleeping: false, wakeRequested: false, sessionCostMicroUsd: 0 });
    expect(budgetStatusState(s, limits)).toBe('ok');
  });

  it('keeps every state valid and spend never decreasing within a day, whatever the events', () => {
    const event = fc.oneof(
      fc.record({ type: fc.constant('budget.charge' as const), costMicroUsd: fc.nat(2_000_000) }),
      fc.record({ type: fc.constant('budget.top_up' as const), amountMicroUsd: fc.nat(2_000_000) }),
      fc.record({ type: fc.constant('budget.set_cap' as const), capMicroUsd: fc.nat(5_000_000) }),
      fc.record({ type: fc.constant('budget.sleep' as const), exceeded: fc.boolean() }),
      fc.record({ type: fc.constant('budget.wake' as const) }),
      fc.record({ type: fc.constant('budget.roll_day' as const) }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(event, fc.nat(7_200_000)), { maxLength: 60 }), (steps) => {
        let at = T0;
        let state = fresh();
        for (const [e, dt] of steps) {
          at += dt;
          const next = budgetReducer(state, { ...e, at });
          BudgetStateSchema.parse(next);
          if (next.dayKey === state.dayKey)
            expect(next.spentTodayMicroUsd).toBeGreaterThanOrEqual(state.spentTodayMicroUsd);
          state = next;
        }
      }),
      { numRuns: 200 },
    );
  });
});
