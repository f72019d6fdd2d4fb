/** Tests for the goals actor: the shared actor contract and the reducer hosted unchanged. */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { GoalsStateSchema, goalsLogic, goalsReducer, initialGoalsState } from '../../../src/actors/goals/index.js';
import type { GoalsEvent } from '../../../src/actors/goals/index.js';
import { runActorContract } from '../../contracts/actor.contract.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

runActorContract({
  name: 'goals',
  logic: goalsLogic,
  stateSchema: GoalsStateSchema,
  initialState: initialGoalsState(),
  validEvent: { type: 'goal.add', at: T0, goal: { id: 'g1', title: 'Summarise the inbox', dueAt: T0 + 60_000 } },
  invalidEvent: { type: 'goal.add', at: T0, goal: { id: 'g1', title: 'Too important', priority: 11 } },
});

describe('goalsLogic', () => {
  it('holds exactly what the reducer computes for the same events', () => {
    const events: GoalsEvent[] = [
      { type: 'goal.add', at: T0, goal: { id: 'g1', title: 'One' } },
      { type: 'goal.add', at: T0 + 1, goal: { id: 'g2', title: 'Two', priority: 8 } },
      { type: 'goal.progress', at: T0 + 2, id: 'g1', delta: 0.5 },
      { type: 'goal.abandon', at: T0 + 3, id: 'g2' },
    ];
    const actor = createActor(goalsLogic, { input: initialGoalsState() }).start();
    events.forEach((event) => actor.send(event));
    expect(actor.getSnapshot().context).toEqual(events.reduce(goalsReducer, initialGoalsState()));
    actor.stop();
  });
});
