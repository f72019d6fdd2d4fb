/** The affect reducer: decay toward the baseline, appraisal with momentum, and a derived emotion label. */
import type { AffectDelta, AffectDimensions, AffectEvent, AffectState } from './affect.schema.js';

/** Half-life of the distance to the baseline (and of momentum): 5 minutes. */
export const AFFECT_HALF_LIFE_MS = 5 * 60_000;

/** Share of the last change carried into the next appraisal. */
export const AFFECT_MOMENTUM_FACTOR = 0.3;

/** A mildly positive, calm temperament. */
export const DEFAULT_AFFECT_BASELINE: AffectDimensions = {
  valence: 0.1,
  arousal: 0.3,
  dominance: 0.1,
  certainty: 0.5,
  goalCongruence: 0,
};

type Dimension = keyof AffectDimensions;

// Mirrors the ranges in AffectDimensionsSchema.
const RANGES: Record<Dimension, readonly [number, number]> = {
  valence: [-1, 1],
  arousal: [0, 1],
  dominance: [-1, 1],
  certainty: [0, 1],
  goalCongruence: [-1, 1],
};

const clampDimension = (d: Dimension, value: number): number => Math.min(RANGES[d][1], Math.max(RANGES[d][0], value));

const mapDimensions = (f: (d: Dimension) => number): AffectDimensions => ({
  valence: f('valence'),
  arousal: f('arousal'),
  dominance: f('dominance'),
  certainty: f('certainty'),
  goalCongruence: f('goalCongruence'),
});

/** A fresh affect state at `at`, resting on `baseline` with no momentum. */
export function initialAffectState(at: number, baseline: AffectDimensions = DEFAULT_AFFECT_BASELINE): AffectState {
  const rest = mapDimensions((d) => clampDimension(d, baseline[d]));
  return { dimensions: rest, baseline: rest, momentum: mapDimensions(() => 0), updatedAt: at };
}

/** Decays dimensions toward the baseline, and momentum toward zero, by the time elapsed up to `at`. */
export function decayAffect(state: AffectState, at: number): AffectState {
  const elapsed = at - state.updatedAt;
  // An event from the past changes nothing: updatedAt never goes back.
  if (!(elapsed > 0)) return state;
  const factor = Math.pow(0.5, elapsed / AFFECT_HALF_LIFE_MS);
  const { dimensions: now, baseline, momentum } = state;
  return {
    ...state,
    dimensions: mapDimensions((d) => clampDimension(d, baseline[d] + (now[d] - baseline[d]) * factor)),
    momentum: mapDimensions((d) => momentum[d] * factor),
    updatedAt: at,
  };
}

/** Applies an appraisal at `at`: decay first, then move by `intensity * delta` plus a share of the momentum. */
export function appraiseAffect(state: AffectState, at: number, delta: AffectDelta, intensity = 1): AffectState {
  const decayed = decayAffect(state, at);
  const { dimensions: now, momentum } = decayed;
  const next = mapDimensions((d) =>
    clampDimension(d, now[d] + intensity * (delta[d] ?? 0) + AFFECT_MOMENTUM_FACTOR * momentum[d]),
  );
  // Momentum is the change actually applied, so a clamped dimension does not keep pushing past its bound.
  return { ...decayed, dimensions: next, momentum: mapDimensions((d) => next[d] - now[d]) };
}

/** The affect reducer: pure and total. */
export function affectReducer(state: AffectState, event: AffectEvent): AffectState {
  switch (event.type) {
    case 'affect.decay':
      return decayAffect(state, event.at);
    case 'affect.appraise':
      return appraiseAffect(state, event.at, event.delta, event.intensity);
    case 'affect.set_baseline': {
      // Decay under the old temperament up to the moment it changes.
      const decayed = decayAffect(state, event.at);
      return { ...decayed, baseline: mapDimensions((d) => clampDimension(d, event.baseline[d])) };
    }
  }
}

/** Every label `emotionLabel` can return. */
export const EMOTION_LABELS = [
  'joyful',
  'excited',
  'alert',
  'content',
  'calm',
  'neutral',
  'frustrated',
  'anxious',
  'sad',
  'bored',
] as const;

/** One of `EMOTION_LABELS`. */
export type EmotionLabel = (typeof EMOTION_LABELS)[number];

const NEAR_ZERO = 0.1;
const STRONG = 0.5;
const HIGH_AROUSAL = 0.6;
const LOW_AROUSAL = 0.35;

/** A word for the current feeling, from the valence/arousal quadrant (dominance splits anger from fear). */
export function emotionLabel(d: AffectDimensions): EmotionLabel {
  const { valence: v, arousal: a, dominance } = d;
  if (v >= NEAR_ZERO) {
    if (a >= HIGH_AROUSAL) return v >= STRONG ? 'joyful' : 'excited';
    return a < LOW_AROUSAL ? 'calm' : 'content';
  }
  if (v <= -NEAR_ZERO) {
    if (a >= HIGH_AROUSAL) return dominance >= 0 ? 'frustrated' : 'anxious';
    if (v <= -STRONG) return 'sad';
    if (a < LOW_AROUSAL) return 'bored';
    return dominance >= 0 ? 'frustrated' : 'anxious';
  }
  return a >= HIGH_AROUSAL ? 'alert' : 'neutral';
}
