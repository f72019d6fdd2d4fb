/** Tests for the working-memory actor: the shared actor contract and the reducer hosted unchanged. */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  WorkingMemoryStateSchema,
  initialWorkingMemoryState,
  workingMemoryLogic,
  workingMemoryReducer,
} from '../../../src/actors/working-memory/index.js';
import type { WorkingMemoryEvent } from '../../../src/actors/working-memory/index.js';
import { runActorContract } from '../../contracts/actor.contract.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

runActorContract({
  name: 'working-memory',
  logic: workingMemoryLogic,
  stateSchema: WorkingMemoryStateSchema,
  initialState: initialWorkingMemoryState(T0, 3),
  validEvent: {
    type: 'memory.admit',
    at: T0 + 1_000,
    item: { id: 'm1', content: 'the user asked about tides', salience: 0.6 },
  },
  invalidEvent: { type: 'memory.admit', at: T0, item: { id: '', content: 'x', salience: 0.5 } },
});

describe('workingMemoryLogic', () => {
  it('holds exactly what the reducer computes for the same events', () => {
    const events: WorkingMemoryEvent[] = [
      { type: 'memory.admit', at: T0, item: { id: 'a', content: 'one', salience: 0.4 } },
      { type: 'memory.admit', at: T0 + 1_000, item: { id: 'b', content: 'two', salience: 0.9 } },
      { type: 'memory.attend', at: T0 + 60_000, id: 'a' },
      { type: 'memory.decay', at: T0 + 600_000 },
    ];
    const actor = createActor(workingMemoryLogic, { input: initialWorkingMemoryState(T0, 2) }).start();
    events.forEach((event) => actor.send(event));
    expect(actor.getSnapshot().context).toEqual(events.reduce(workingMemoryReducer, initialWorkingMemoryState(T0, 2)));
    actor.stop();
  });
});
