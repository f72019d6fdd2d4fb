/** Tests for the goals reducer and selectors: lifecycle, urgency order, bounded history and schema invariants. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_GOAL_PRIORITY,
  GoalsStateSchema,
  MAX_FINISHED_GOALS,
  activeGoals,
  dueGoals,
  findGoal,
  goalsReducer,
  initialGoalsState,
  mostUrgentGoal,
} from '../../../src/actors/goals/index.js';
import type { GoalsEvent, GoalsState } from '../../../src/actors/goals/index.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const HOUR = 3_600_000;

type NewGoal = Extract<GoalsEvent, { type: 'goal.add' }>['goal'];
const add = (state: GoalsState, goal: NewGoal, at = T0): GoalsState =>
  goalsReducer(state, { type: 'goal.add', at, goal });
const withGoals = (...goals: Array<NewGoal & { at?: number }>): GoalsState =>
  goals.reduce((state, { at, ...goal }) => add(state, goal, at ?? T0), initialGoalsState());

describe('initialGoalsState', () => {
  it('starts with no goals', () => {
    expect(initialGoalsState()).toEqual({ goals: [] });
  });
});

describe('goalsReducer goal.add', () => {
  it('adds an active goal at zero progress with the default priority when none is given', () => {
    const state = add(initialGoalsState(), { id: 'g1', title: 'Write the report' });
    expect(state.goals).toEqual([
      {
        id: 'g1',
        title: 'Write the report',
        priority: DEFAULT_GOAL_PRIORITY,
        progress: 0,
        status: 'active',
        createdAt: T0,
        updatedAt: T0,
      },
    ]);
    expect('dueAt' in state.goals[0]!).toBe(false);
  });

  it('keeps the given priority and due time', () => {
    const state = add(initialGoalsState(), { id: 'g1', title: 'Ship', priority: 9, dueAt: T0 + HOUR });
    expect(state.goals[0]).toMatchObject({ priority: 9, dueAt: T0 + HOUR });
  });

  it('ignores a goal whose id already exists', () => {
    const state = withGoals({ id: 'g1', title: 'First' });
    expect(add(state, { id: 'g1', title: 'Second' })).toBe(state);
  });
});

describe('goalsReducer goal.progress', () => {
  const state = withGoals({ id: 'g1', title: 'Read' });

  it('adds the delta to progress and stamps the update time', () => {
    const next = goalsReducer(state, { type: 'goal.progress', at: T0 + 1, id: 'g1', delta: 0.25 });
    expect(findGoal(next, 'g1')).toMatchObject({ progress: 0.25, status: 'active', updatedAt: T0 + 1 });
  });

  it('clamps progress at zero for a negative delta', () => {
    const next = goalsReducer(state, { type: 'goal.progress', at: T0, id: 'g1', delta: -3 });
    expect(findGoal(next, 'g1')?.progress).toBe(0);
  });

  it('completes the goal when progress reaches 1', () => {
    const next = goalsReducer(state, { type: 'goal.progress', at: T0, id: 'g1', delta: 7 });
    expect(findGoal(next, 'g1')).toMatchObject({ progress: 1, status: 'completed' });
  });

  it('changes nothing for an unknown id or a finished goal', () => {
    expect(goalsReducer(state, { type: 'goal.progress', at: T0, id: 'nope', delta: 0.5 })).toBe(state);
    const abandoned = goalsReducer(state, { type: 'goal.abandon', at: T0, id: 'g1' });
    expect(goalsReducer(abandoned, { type: 'goal.progress', at: T0, id: 'g1', delta: 0.5 })).toBe(abandoned);
  });
});

describe('goalsReducer goal.complete and goal.abandon', () => {
  const state = withGoals({ id: 'g1', title: 'Read' });

  it('completes an active goal with full progress', () => {
    const next = goalsReducer(state, { type: 'goal.complete', at: T0 + 5, id: 'g1' });
    expect(findGoal(next, 'g1')).toMatchObject({ progress: 1, status: 'completed', updatedAt: T0 + 5 });
  });

  it('abandons an active goal keeping its progress', () => {
    const started = goalsReducer(state, { type: 'goal.progress', at: T0, id: 'g1', delta: 0.4 });
    const next = goalsReducer(started, { type: 'goal.abandon', at: T0 + 5, id: 'g1' });
    expect(findGoal(next, 'g1')).toMatchObject({ progress: 0.4, status: 'abandoned', updatedAt: T0 + 5 });
  });

  it('changes nothing for an unknown id or a goal already finished', () => {
    expect(goalsReducer(state, { type: 'goal.complete', at: T0, id: 'nope' })).toBe(state);
    expect(goalsReducer(state, { type: 'goal.abandon', at: T0, id: 'nope' })).toBe(state);
    const completed = goalsReducer(state, { type: 'goal.complete', at: T0, id: 'g1' });
    expect(goalsReducer(completed, { type: 'goal.abandon', at: T0 + 1, id: 'g1' })).toBe(completed);
  });
});

describe('goalsReducer history bound', () => {
  it('keeps at most 200 finished goals, forgetting the ones that finished first, and keeps every active goal', () => {
    let state = withGoals({ id: 'keep', title: 'Still active' });
    for (let i = 0; i < MAX_FINISHED_GOALS + 5; i += 1) {
      state = add(state, { id: `f${i}`, title: `Done ${i}` }, T0 + i);
      state = goalsReducer(state, { type: 'goal.complete', at: T0 + 1_000 + i, id: `f${i}` });
    }
    const finished = state.goals.filter((goal) => goal.status !== 'active');
    expect(finished).toHaveLength(MAX_FINISHED_GOALS);
    expect(findGoal(state, 'f0')).toBeUndefined();
    expect(findGoal(state, 'f4')).toBeUndefined();
    expect(findGoal(state, 'f5')).toBeDefined();
    expect(findGoal(state, 'keep')?.status).toBe('active');
  });
});

describe('goal selectors', () => {
  const state = goalsReducer(
    withGoals(
      { id: 'later', title: 'Due later', priority: 2, dueAt: T0 + 2 * HOUR },
      { id: 'soon', title: 'Due soon', priority: 1, dueAt: T0 + HOUR },
      { id: 'big', title: 'Important', priority: 9 },
      { id: 'done', title: 'Finished', dueAt: T0 },
    ),
    { type: 'goal.complete', at: T0, id: 'done' },
  );

  it('lists active goals in insertion order', () => {
    expect(activeGoals(state).map((goal) => goal.id)).toEqual(['later', 'soon', 'big']);
  });

  it('lists due active goals earliest due first, excluding finished goals', () => {
    expect(dueGoals(state, T0 + 3 * HOUR).map((goal) => goal.id)).toEqual(['soon', 'later']);
    expect(dueGoals(state, T0 + HOUR).map((goal) => goal.id)).toEqual(['soon']);
    expect(dueGoals(state, T0)).toEqual([]);
  });

  it('picks the earliest due goal over a higher-priority goal that is not due', () => {
    expect(mostUrgentGoal(state, T0 + 3 * HOUR)?.id).toBe('soon');
  });

  it('picks the highest-priority active goal when none is due', () => {
    expect(mostUrgentGoal(state, T0)?.id).toBe('big');
  });

  it('breaks a priority tie by the sooner due time, then by the older goal', () => {
    const tied = withGoals(
      { id: 'old-undated', title: 'a', priority: 5, at: T0 },
      { id: 'new-undated', title: 'b', priority: 5, at: T0 + 1 },
      { id: 'dated', title: 'c', priority: 5, dueAt: T0 + HOUR, at: T0 + 2 },
    );
    expect(mostUrgentGoal(tied, T0)?.id).toBe('dated');
    const undated = withGoals({ id: 'new', title: 'b', at: T0 + 1 }, { id: 'old', title: 'a', at: T0 });
    expect(mostUrgentGoal(undated, T0)?.id).toBe('old');
  });

  it('breaks a due-time tie among due goals by priority', () => {
    const tied = withGoals(
      { id: 'low', title: 'a', priority: 2, dueAt: T0 },
      { id: 'high', title: 'b', priority: 8, dueAt: T0 },
    );
    expect(mostUrgentGoal(tied, T0)?.id).toBe('high');
  });

  it('returns undefined when there is no active goal', () => {
    expect(mostUrgentGoal(initialGoalsState(), T0)).toBeUndefined();
    expect(findGoal(state, 'nope')).toBeUndefined();
  });
});

const idArb = fc.constantFrom('a', 'b', 'c', 'd', 'e');
const timeArb = fc.integer({ min: T0, max: T0 + 10 * HOUR });
const eventArb: fc.Arbitrary<GoalsEvent> = fc.oneof(
  fc.record({
    type: fc.constant('goal.add' as const),
    at: timeArb,
    goal: fc.record(
      { id: idArb, title: fc.string({ minLength: 1 }), priority: fc.integer({ min: 1, max: 10 }), dueAt: timeArb },
      { requiredKeys: ['id', 'title'] },
    ),
  }),
  fc.record({
    type: fc.constant('goal.progress' as const),
    at: timeArb,
    id: idArb,
    delta: fc.double({ noNaN: true, noDefaultInfinity: true }),
  }),
  fc.record({ type: fc.constant('goal.complete' as const), at: timeArb, id: idArb }),
  fc.record({ type: fc.constant('goal.abandon' as const), at: timeArb, id: idArb }),
);

describe('goalsReducer properties', () => {
  it('always yields a schema-valid state with unique ids where only active goals lack full progress', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 50 }), timeArb, (events, now) => {
        const state = events.reduce(goalsReducer, initialGoalsState());
        expect(GoalsStateSchema.safeParse(state).success).toBe(true);
        expect(new Set(state.goals.map((goal) => goal.id)).size).toBe(state.goals.length);
        for (const goal of state.goals) {
          if (goal.status === 'completed') expect(goal.progress).toBe(1);
          if (goal.status === 'active') expect(goal.progress).toBeLessThan(1);
        }
        const urgent = mostUrgentGoal(state, now);
        expect(urgent === undefined).toBe(activeGoals(state).length === 0);
        const due = dueGoals(state, now);
        if (due.length > 0) expect(urgent).toBe(due[0]);
      }),
    );
  });
});
