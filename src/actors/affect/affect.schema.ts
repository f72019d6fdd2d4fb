/** Affect: the agent's emotional state as five dimensions with a baseline and momentum; its state and events. */
import { z } from 'zod';

/** The five affect dimensions and their ranges. */
export const AffectDimensionsSchema = z.object({
  valence: z.number().min(-1).max(1),
  arousal: z.number().min(0).max(1),
  dominance: z.number().min(-1).max(1),
  certainty: z.number().min(0).max(1),
  goalCongruence: z.number().min(-1).max(1),
});
export type AffectDimensions = z.infer<typeof AffectDimensionsSchema>;

/** A change to some dimensions (unclamped deltas; the reducer clamps). */
export const AffectDeltaSchema = z.object({
  valence: z.number().optional(),
  arousal: z.number().optional(),
  dominance: z.number().optional(),
  certainty: z.number().optional(),
  goalCongruence: z.number().optional(),
});
export type AffectDelta = z.infer<typeof AffectDeltaSchema>;

/** The affect actor's whole state: what a checkpoint stores. */
export const AffectStateSchema = z.object({
  dimensions: AffectDimensionsSchema,
  baseline: AffectDimensionsSchema,
  /** The last change's direction per dimension, carried into the next appraisal (emotional inertia). */
  momentum: z.object({
    valence: z.number(),
    arousal: z.number(),
    dominance: z.number(),
    certainty: z.number(),
    goalCongruence: z.number(),
  }),
  /** Epoch ms of the last update; decay is computed from the time elapsed since. */
  updatedAt: z.number(),
});
export type AffectState = z.infer<typeof AffectStateSchema>;

/** Events the affect actor accepts; time always arrives on the event. */
export const AffectEventSchema = z.discriminatedUnion('type', [
  /** Decay toward the baseline by the time elapsed since `updatedAt`. */
  z.object({ type: z.literal('affect.decay'), at: z.number() }),
  /** An appraisal moves the dimensions by `delta`, scaled by `intensity` (0..1, default 1). */
  z.object({
    type: z.literal('affect.appraise'),
    at: z.number(),
    delta: AffectDeltaSchema,
    intensity: z.number().min(0).max(1).optional(),
  }),
  /** Replace the baseline (the agent's temperament). */
  z.object({ type: z.literal('affect.set_baseline'), at: z.number(), baseline: AffectDimensionsSchema }),
]);
export type AffectEvent = z.infer<typeof AffectEventSchema>;
