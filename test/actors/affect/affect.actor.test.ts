/** Tests for the affect actor: the shared actor contract and the reducer hosted unchanged. */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { AffectStateSchema, affectLogic, affectReducer, initialAffectState } from '../../../src/actors/affect/index.js';
import type { AffectEvent } from '../../../src/actors/affect/index.js';
import { runActorContract } from '../../contracts/actor.contract.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

runActorContract({
  name: 'affect',
  logic: affectLogic,
  stateSchema: AffectStateSchema,
  initialState: initialAffectState(T0),
  validEvent: { type: 'affect.appraise', at: T0 + 1_000, delta: { valence: 0.3, arousal: 0.2 } },
  invalidEvent: { type: 'affect.appraise', at: T0, delta: { valence: 0.1 }, intensity: 2 },
});

describe('affectLogic', () => {
  it('holds exactly what the reducer computes for the same events', () => {
    const events: AffectEvent[] = [
      { type: 'affect.appraise', at: T0 + 1_000, delta: { valence: -0.6 }, intensity: 0.8 },
      { type: 'affect.decay', at: T0 + 120_000 },
      { type: 'affect.set_baseline', at: T0 + 180_000, baseline: initialAffectState(T0).baseline },
    ];
    const actor = createActor(affectLogic, { input: initialAffectState(T0) }).start();
    events.forEach((event) => actor.send(event));
    expect(actor.getSnapshot().context).toEqual(events.reduce(affectReducer, initialAffectState(T0)));
    actor.stop();
  });
});
