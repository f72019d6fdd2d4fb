/** Tests for the affect reducer: decay, appraisal with momentum, baseline changes, labels and range invariants. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AFFECT_HALF_LIFE_MS,
  AFFECT_MOMENTUM_FACTOR,
  AffectStateSchema,
  DEFAULT_AFFECT_BASELINE,
  EMOTION_LABELS,
  affectReducer,
  emotionLabel,
  initialAffectState,
} from '../../../src/actors/affect/index.js';
import type { AffectDimensions, AffectEvent, AffectState } from '../../../src/actors/affect/index.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const dims = (d: Partial<AffectDimensions>): AffectDimensions => ({ ...DEFAULT_AFFECT_BASELINE, ...d });
const at = (state: AffectState, patch: Partial<AffectState>): AffectState => ({ ...state, ...patch });

describe('initialAffectState', () => {
  it('rests on a mildly positive calm baseline with no momentum when no baseline is given', () => {
    const state = initialAffectState(T0);
    expect(state.dimensions).toEqual(DEFAULT_AFFECT_BASELINE);
    expect(state.baseline).toEqual(DEFAULT_AFFECT_BASELINE);
    expect(state.momentum).toEqual({ valence: 0, arousal: 0, dominance: 0, certainty: 0, goalCongruence: 0 });
    expect(state.updatedAt).toBe(T0);
    expect(state.dimensions.valence).toBeGreaterThan(0);
    expect(emotionLabel(state.dimensions)).toBe('calm');
  });

  it('uses the given baseline as both baseline and current dimensions', () => {
    const baseline = dims({ valence: -0.4, arousal: 0.7 });
    const state = initialAffectState(T0, baseline);
    expect(state.dimensions).toEqual(baseline);
    expect(state.baseline).toEqual(baseline);
  });
});

describe('affectReducer affect.decay', () => {
  const excited = at(initialAffectState(T0), {
    dimensions: dims({ valence: 0.9, arousal: 0.9 }),
    momentum: { valence: 0.4, arousal: -0.2, dominance: 0, certainty: 0, goalCongruence: 0 },
  });

  it('halves the distance to the baseline and the momentum after one half-life', () => {
    const next = affectReducer(excited, { type: 'affect.decay', at: T0 + AFFECT_HALF_LIFE_MS });
    expect(next.dimensions.valence).toBeCloseTo(0.1 + 0.8 / 2, 10);
    expect(next.dimensions.arousal).toBeCloseTo(0.3 + 0.6 / 2, 10);
    expect(next.momentum.valence).toBeCloseTo(0.2, 10);
    expect(next.momentum.arousal).toBeCloseTo(-0.1, 10);
    expect(next.updatedAt).toBe(T0 + AFFECT_HALF_LIFE_MS);
  });

  it('settles on the baseline after a long time', () => {
    const next = affectReducer(excited, { type: 'affect.decay', at: T0 + 100 * AFFECT_HALF_LIFE_MS });
    expect(next.dimensions.valence).toBeCloseTo(DEFAULT_AFFECT_BASELINE.valence, 10);
    expect(next.dimensions.arousal).toBeCloseTo(DEFAULT_AFFECT_BASELINE.arousal, 10);
    expect(next.momentum.valence).toBeCloseTo(0, 10);
  });

  it('changes nothing when no time has elapsed', () => {
    expect(affectReducer(excited, { type: 'affect.decay', at: T0 })).toBe(excited);
  });

  it('changes nothing, updatedAt included, when the event is from the past', () => {
    const next = affectReducer(excited, { type: 'affect.decay', at: T0 - 60_000 });
    expect(next).toBe(excited);
    expect(next.updatedAt).toBe(T0);
  });
});

describe('affectReducer affect.appraise', () => {
  const calm = initialAffectState(T0);

  it('moves the named dimensions by the delta at full intensity when no intensity is given', () => {
    const next = affectReducer(calm, { type: 'affect.appraise', at: T0, delta: { valence: 0.3, certainty: -0.2 } });
    expect(next.dimensions.valence).toBeCloseTo(0.4, 10);
    expect(next.dimensions.certainty).toBeCloseTo(0.3, 10);
    expect(next.dimensions.arousal).toBe(calm.dimensions.arousal);
  });

  it('scales the delta by the intensity', () => {
    const next = affectReducer(calm, { type: 'affect.appraise', at: T0, delta: { valence: 0.4 }, intensity: 0.5 });
    expect(next.dimensions.valence).toBeCloseTo(0.3, 10);
  });

  it('records the applied change as momentum and carries a share of it into the next appraisal', () => {
    const first = affectReducer(calm, { type: 'affect.appraise', at: T0, delta: { valence: 0.2 } });
    expect(first.momentum.valence).toBeCloseTo(0.2, 10);
    const second = affectReducer(first, { type: 'affect.appraise', at: T0, delta: { valence: 0.1 } });
    expect(second.dimensions.valence).toBeCloseTo(0.3 + 0.1 + AFFECT_MOMENTUM_FACTOR * 0.2, 10);
    expect(second.momentum.valence).toBeCloseTo(0.1 + AFFECT_MOMENTUM_FACTOR * 0.2, 10);
  });

  it('clamps each dimension to its schema range and keeps only the applied change as momentum', () => {
    const next = affectReducer(calm, {
      type: 'affect.appraise',
      at: T0,
      delta: { valence: 5, arousal: -5, dominance: -5, certainty: 5, goalCongruence: 5 },
    });
    expect(next.dimensions).toEqual({ valence: 1, arousal: 0, dominance: -1, certainty: 1, goalCongruence: 1 });
    expect(next.momentum.valence).toBeCloseTo(0.9, 10);
    expect(next.momentum.arousal).toBeCloseTo(-0.3, 10);
  });

  it('decays up to the appraisal time before applying the delta', () => {
    const raised = at(calm, { dimensions: dims({ valence: 0.9 }) });
    const next = affectReducer(raised, {
      type: 'affect.appraise',
      at: T0 + AFFECT_HALF_LIFE_MS,
      delta: { valence: 0.1 },
    });
    expect(next.dimensions.valence).toBeCloseTo(0.5 + 0.1, 10);
    expect(next.updatedAt).toBe(T0 + AFFECT_HALF_LIFE_MS);
  });
});

describe('affectReducer affect.set_baseline', () => {
  it('decays under the old baseline up to the event, then decays toward the new one', () => {
    const raised = at(initialAffectState(T0), { dimensions: dims({ valence: 0.9 }) });
    const baseline = dims({ valence: -0.5 });
    const set = affectReducer(raised, { type: 'affect.set_baseline', at: T0 + AFFECT_HALF_LIFE_MS, baseline });
    expect(set.baseline).toEqual(baseline);
    expect(set.dimensions.valence).toBeCloseTo(0.5, 10);
    const later = affectReducer(set, { type: 'affect.decay', at: T0 + 2 * AFFECT_HALF_LIFE_MS });
    expect(later.dimensions.valence).toBeCloseTo(-0.5 + 1.0 / 2, 10);
  });
});

describe('emotionLabel', () => {
  it.each<[Partial<AffectDimensions>, string]>([
    [{ valence: 0.8, arousal: 0.8 }, 'joyful'],
    [{ valence: 0.3, arousal: 0.8 }, 'excited'],
    [{ valence: 0.5, arousal: 0.5 }, 'content'],
    [{ valence: 0.3, arousal: 0.1 }, 'calm'],
    [{ valence: 0, arousal: 0.4 }, 'neutral'],
    [{ valence: 0.05, arousal: 0.1 }, 'neutral'],
    [{ valence: 0, arousal: 0.9 }, 'alert'],
    [{ valence: -0.5, arousal: 0.8, dominance: 0.5 }, 'frustrated'],
    [{ valence: -0.5, arousal: 0.8, dominance: -0.5 }, 'anxious'],
    [{ valence: -0.7, arousal: 0.2 }, 'sad'],
    [{ valence: -0.2, arousal: 0.1 }, 'bored'],
  ])('labels %o as %s', (d, label) => {
    expect(emotionLabel(dims(d))).toBe(label);
  });
});

const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
const unit = fc.double({ min: 0, max: 1, noNaN: true });
const signed = fc.double({ min: -1, max: 1, noNaN: true });
const dimensionsArb = fc.record({
  valence: signed,
  arousal: unit,
  dominance: signed,
  certainty: unit,
  goalCongruence: signed,
});
const timeArb = fc.integer({ min: T0 - 3_600_000, max: T0 + 86_400_000 });

/** Any event the affect schema accepts. */
const affectEventArb: fc.Arbitrary<AffectEvent> = fc.oneof(
  fc.record({ type: fc.constant('affect.decay' as const), at: timeArb }),
  fc.record(
    {
      type: fc.constant('affect.appraise' as const),
      at: timeArb,
      delta: fc.record(
        { valence: finite, arousal: finite, dominance: finite, certainty: finite, goalCongruence: finite },
        { requiredKeys: [] },
      ),
      intensity: unit,
    },
    { requiredKeys: ['type', 'at', 'delta'] },
  ),
  fc.record({ type: fc.constant('affect.set_baseline' as const), at: timeArb, baseline: dimensionsArb }),
);

describe('affectReducer properties', () => {
  it('keeps every dimension in its schema range and the state parseable for any event sequence', () => {
    fc.assert(
      fc.property(dimensionsArb, fc.array(affectEventArb, { maxLength: 40 }), (baseline, events) => {
        let state = initialAffectState(T0, baseline);
        for (const event of events) {
          const previousAt = state.updatedAt;
          state = affectReducer(state, event);
          expect(state.updatedAt).toBeGreaterThanOrEqual(previousAt);
          expect(AffectStateSchema.safeParse(state).success).toBe(true);
          expect(EMOTION_LABELS).toContain(emotionLabel(state.dimensions));
        }
      }),
    );
  });
});
