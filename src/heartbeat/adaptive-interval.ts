/** The adaptive beat interval: quicker while a user is around or the agent is aroused, slower as it idles. */

/** Inputs to the interval: all times in epoch ms. */
export interface IntervalInputs {
  baseMs: number;
  minMs: number;
  maxMs: number;
  now: number;
  /** Last user message, or null if none since start. */
  lastUserActivityAt: number | null;
  /** When idleness started counting if there was never a user (the runtime's start). */
  idleSince: number;
  arousal: number;
}

const USER_ACTIVE_WINDOW_MS = 2 * 60_000;

/** base × (0.3 while a user was active in the last 2 minutes, else 1 + 0.1 per idle minute) × (1 − 0.5 × arousal), clamped. */
export function adaptiveIntervalMs(inputs: IntervalInputs): number {
  const lastActivity = inputs.lastUserActivityAt ?? inputs.idleSince;
  const sinceActivity = Math.max(0, inputs.now - lastActivity);
  const userFactor =
    inputs.lastUserActivityAt !== null && sinceActivity < USER_ACTIVE_WINDOW_MS
      ? 0.3
      : 1 + 0.1 * (sinceActivity / 60_000);
  const arousal = Math.min(1, Math.max(0, inputs.arousal));
  const raw = inputs.baseMs * userFactor * (1 - 0.5 * arousal);
  return Math.round(Math.min(inputs.maxMs, Math.max(inputs.minMs, raw)));
}
