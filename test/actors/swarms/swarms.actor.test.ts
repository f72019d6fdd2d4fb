/** Tests for the swarms actor: the shared actor contract and the reducer hosted unchanged. */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { SwarmsStateSchema, initialSwarmsState, swarmsLogic, swarmsReducer } from '../../../src/actors/swarms/index.js';
import type { SwarmsEvent } from '../../../src/actors/swarms/index.js';
import { runActorContract } from '../../contracts/actor.contract.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

runActorContract({
  name: 'swarms',
  logic: swarmsLogic,
  stateSchema: SwarmsStateSchema,
  initialState: initialSwarmsState(),
  validEvent: { type: 'swarm.spawn', at: T0, task: { id: 's1', turnId: 'turn-1', prompt: 'Find the tide tables' } },
  invalidEvent: { type: 'swarm.consumed', at: T0, ids: 's1' },
});

describe('swarmsLogic', () => {
  it('holds exactly what the reducer computes for the same events', () => {
    const events: SwarmsEvent[] = [
      { type: 'swarm.spawn', at: T0, task: { id: 'a', turnId: 't', prompt: 'p' } },
      { type: 'swarm.started', at: T0 + 1, id: 'a' },
      { type: 'swarm.succeeded', at: T0 + 2, id: 'a', result: 'r' },
      { type: 'swarm.consumed', at: T0 + 3, ids: ['a'] },
    ];
    const actor = createActor(swarmsLogic, { input: initialSwarmsState() }).start();
    events.forEach((event) => actor.send(event));
    expect(actor.getSnapshot().context).toEqual(events.reduce(swarmsReducer, initialSwarmsState()));
    actor.stop();
  });

  it('re-queues in-flight work when restored from a checkpoint taken mid-run', () => {
    const checkpoint = swarmsReducer(
      swarmsReducer(initialSwarmsState(), { type: 'swarm.spawn', at: T0, task: { id: 'a', turnId: 't', prompt: 'p' } }),
      { type: 'swarm.started', at: T0 + 1, id: 'a' },
    );
    const restored = createActor(swarmsLogic, {
      input: SwarmsStateSchema.parse(JSON.parse(JSON.stringify(checkpoint))),
    }).start();
    restored.send({ type: 'swarm.requeue_running', at: T0 + 10 });
    expect(restored.getSnapshot().context.tasks[0]).toMatchObject({ id: 'a', status: 'queued' });
    restored.stop();
  });
});
