/** The goals reducer: add, progress, complete and abandon goals, with a bounded history of finished ones. */
import { DEFAULT_GOAL_PRIORITY } from './goals.schema.js';
import type { Goal, GoalsEvent, GoalsState } from './goals.schema.js';

/** Finished (completed or abandoned) goals kept; older ones are forgotten. */
export const MAX_FINISHED_GOALS = 200;

/** An empty goal list. */
export function initialGoalsState(): GoalsState {
  return { goals: [] };
}

/** True for a goal that is completed or abandoned. */
export const isFinishedGoal = (goal: Goal): boolean => goal.status !== 'active';

/** Drops the oldest finished goals (by when they finished) past `MAX_FINISHED_GOALS`, keeping insertion order. */
export function pruneFinishedGoals(state: GoalsState): GoalsState {
  const finished = state.goals.filter(isFinishedGoal);
  const excess = finished.length - MAX_FINISHED_GOALS;
  if (excess <= 0) return state;
  // Array.prototype.sort is stable, so equal finish times fall back to insertion order.
  const dropped = new Set(
    [...finished]
      .sort((a, b) => a.updatedAt - b.updatedAt)
      .slice(0, excess)
      .map((goal) => goal.id),
  );
  return { goals: state.goals.filter((goal) => !dropped.has(goal.id)) };
}

/** Replaces active goal `id` with `update(goal)`; an unknown or finished goal changes nothing. */
function updateActive(state: GoalsState, id: string, update: (goal: Goal) => Goal): GoalsState {
  const index = state.goals.findIndex((goal) => goal.id === id);
  const goal = state.goals[index];
  if (goal === undefined || goal.status !== 'active') return state;
  const goals = [...state.goals];
  goals[index] = update(goal);
  return pruneFinishedGoals({ goals });
}

/** The goals reducer: pure and total. */
export function goalsReducer(state: GoalsState, event: GoalsEvent): GoalsState {
  switch (event.type) {
    case 'goal.add': {
      const { id, title, priority, dueAt } = event.goal;
      if (state.goals.some((goal) => goal.id === id)) return state;
      const goal: Goal = {
        id,
        title,
        priority: priority ?? DEFAULT_GOAL_PRIORITY,
        progress: 0,
        status: 'active',
        // Omitted rather than undefined, so the goal survives a JSON round trip unchanged.
        ...(dueAt === undefined ? {} : { dueAt }),
        createdAt: event.at,
        updatedAt: event.at,
      };
      return { goals: [...state.goals, goal] };
    }
    case 'goal.progress':
      return updateActive(state, event.id, (goal) => {
        // Rounded to a thousandth where it is made: sums of tenths are not tenths in binary (0.7 + 0.2 = 0.8999…).
        const progress = Math.min(1, Math.max(0, Math.round((goal.progress + event.delta) * 1000) / 1000));
        return { ...goal, progress, status: progress >= 1 ? 'completed' : 'active', updatedAt: event.at };
      });
    case 'goal.complete':
      return updateActive(state, event.id, (goal) => ({
        ...goal,
        progress: 1,
        status: 'completed',
        updatedAt: event.at,
      }));
    case 'goal.abandon':
      return updateActive(state, event.id, (goal) => ({ ...goal, status: 'abandoned', updatedAt: event.at }));
  }
}

// Selectors: read-only views for the heartbeat and the gateway.

/** Active goals in insertion order. */
export function activeGoals(state: GoalsState): Goal[] {
  return state.goals.filter((goal) => goal.status === 'active');
}

/** True when `goal` is active and due at or before `now`. */
export const isDue = (goal: Goal, now: number): boolean =>
  goal.status === 'active' && goal.dueAt !== undefined && goal.dueAt <= now;

// Missing due times sort after every real one.
const dueTime = (goal: Goal): number => goal.dueAt ?? Number.POSITIVE_INFINITY;

/** Orders by earliest due, then highest priority, then oldest. */
const byDueThenPriority = (a: Goal, b: Goal): number =>
  dueTime(a) - dueTime(b) || b.priority - a.priority || a.createdAt - b.createdAt;

/** Orders by highest priority, then soonest due, then oldest. */
const byPriorityThenDue = (a: Goal, b: Goal): number => {
  if (b.priority !== a.priority) return b.priority - a.priority;
  const da = dueTime(a);
  const db = dueTime(b);
  // Subtracting two infinities is NaN, so compare before subtracting.
  if (da !== db) return da < db ? -1 : 1;
  return a.createdAt - b.createdAt;
};

/** Active goals due at or before `now`, earliest due first. */
export function dueGoals(state: GoalsState, now: number): Goal[] {
  return state.goals.filter((goal) => isDue(goal, now)).sort(byDueThenPriority);
}

/** The goal to work on next: the earliest due one, else the highest-priority active one (seed 002's work selection). */
export function mostUrgentGoal(state: GoalsState, now: number): Goal | undefined {
  return dueGoals(state, now)[0] ?? activeGoals(state).sort(byPriorityThenDue)[0];
}

/** The goal with `id`, if any. */
export function findGoal(state: GoalsState, id: string): Goal | undefined {
  return state.goals.find((goal) => goal.id === id);
}
