import { describe, expect, it } from 'vitest';
import { goalsReducer, initialGoalsState } from '../../src/actors/goals/goals.reducer.js';
import { initialSwarmsState, swarmsReducer } from '../../src/actors/swarms/swarms.reducer.js';
import { planBeat, type PlanInputs } from '../../src/heartbeat/beat-plan.js';

const now = 1_000_000;
const idle: PlanInputs = {
  now,
  beatCount: 10,
  pending: [],
  goals: initialGoalsState(),
  swarms: initialSwarmsState(),
  lastGoalWorkBeat: Number.NEGATIVE_INFINITY,
  goalWorkEveryBeats: 5,
  debriefReady: false,
  autonomyAllowed: true,
};
const withGoal = (priority: number, dueAt?: number, id = 'g1') =>
  goalsReducer(idle.goals, {
    type: 'goal.add',
    at: 0,
    goal: { id, title: id, priority, ...(dueAt === undefined ? {} : { dueAt }) },
  });

describe('planBeat', () => {
  it('plans nothing when there is no message, no result and no goal: an idle beat thinks not at all', () => {
    expect(planBeat(idle)).toBeNull();
  });

  it('answers a pending user message before anything else', () => {
    const plan = planBeat({
      ...idle,
      goals: withGoal(9, now - 1),
      pending: [{ turnId: 't1', text: 'hi', from: 'user', at: now }],
    });
    expect(plan).toEqual({ reason: 'user_message', turnId: 't1', swarmTaskIds: [] });
  });

  it('digests finished swarm results before goal work', () => {
    let swarms = swarmsReducer(idle.swarms, {
      type: 'swarm.spawn',
      at: 0,
      task: { id: 's1', turnId: 't', prompt: 'p' },
    });
    swarms = swarmsReducer(swarms, { type: 'swarm.succeeded', at: 1, id: 's1', result: 'r' });
    expect(planBeat({ ...idle, swarms, goals: withGoal(5, now - 1) })).toMatchObject({
      reason: 'swarm_results',
      swarmTaskIds: ['s1'],
    });
  });

  it('works on a due goal on every beat', () => {
    expect(planBeat({ ...idle, goals: withGoal(1, now - 1), lastGoalWorkBeat: 9 })).toMatchObject({
      reason: 'goal_work',
      focusGoalId: 'g1',
    });
  });

  it('runs an owed debrief before goal work, and neither while winding down', () => {
    expect(planBeat({ ...idle, debriefReady: true, goals: withGoal(1, now - 1) })).toMatchObject({ reason: 'debrief' });
    expect(planBeat({ ...idle, debriefReady: true, goals: withGoal(1, now - 1), autonomyAllowed: false })).toBeNull();
  });

  it('paces work on a goal that is not due', () => {
    const goals = withGoal(5);
    expect(planBeat({ ...(goals && idle), goals, lastGoalWorkBeat: 8 })).toBeNull();
    expect(planBeat({ ...idle, goals, lastGoalWorkBeat: 5 })).toMatchObject({ reason: 'goal_work', focusGoalId: 'g1' });
  });
});
