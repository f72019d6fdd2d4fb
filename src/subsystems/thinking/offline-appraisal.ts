/** A tiny lexicon appraisal for the offline thinker: how a message's words move the agent's affect. */
import type { AffectDelta, AffectDimensions } from '../../actors/affect/affect.schema.js';

const POSITIVE = new Set([
  'good',
  'great',
  'thanks',
  'thank',
  'love',
  'awesome',
  'excellent',
  'nice',
  'happy',
  'glad',
  'perfect',
  'wonderful',
  'cool',
  'brilliant',
  'amazing',
  'well',
  'like',
  'enjoy',
  'fantastic',
  'yay',
  'congrats',
  'finished',
  'fixed',
  'solved',
  'works',
  'success',
  'won',
]);
const NEGATIVE = new Set([
  'bad',
  'wrong',
  'broken',
  'fail',
  'failed',
  'failure',
  'error',
  'hate',
  'angry',
  'sad',
  'terrible',
  'awful',
  'problem',
  'bug',
  'crash',
  'crashed',
  'annoying',
  'worried',
  'worse',
  'worst',
  'sorry',
  'upset',
  'stuck',
]);
const URGENT = new Set([
  'urgent',
  'urgently',
  'asap',
  'immediately',
  'quickly',
  'hurry',
  'emergency',
  'now',
  'critical',
]);
const NEGATORS = new Set(['not', 'no', 'never', "don't", "didn't", "isn't", "wasn't", "aren't", "can't", "won't"]);

/** Rounds to 3 decimals so deltas stay readable and free of float noise. */
export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

/** What a message does to affect: a delta and how strongly to apply it. */
export interface Appraisal {
  delta: AffectDelta;
  intensity: number;
}

/** Appraises `text`: positive/negative words move valence (a preceding "not" flips them), `!` and urgency raise arousal, questions lower certainty. */
export function appraiseText(text: string): Appraisal {
  const words = text.toLowerCase().match(/[a-z']+/g) ?? [];
  let score = 0;
  let urgency = 0;
  words.forEach((word, i) => {
    const negated = i > 0 && NEGATORS.has(words[i - 1] ?? '');
    if (POSITIVE.has(word)) score += negated ? -1 : 1;
    else if (NEGATIVE.has(word)) score += negated ? 1 : -1;
    if (URGENT.has(word)) urgency += 1;
  });
  const exclamations = (text.match(/!/g) ?? []).length;
  const questions = (text.match(/\?/g) ?? []).length;
  // Any message is a little engaging (social contact), hence the 0.05 floor on arousal.
  const arousal = 0.05 + Math.min(0.3, exclamations * 0.1) + Math.min(0.3, urgency * 0.15);
  const delta: AffectDelta = {
    valence: round3(clamp(score * 0.15, -0.5, 0.5)),
    arousal: round3(arousal),
  };
  if (questions > 0) delta.certainty = round3(-Math.min(0.3, questions * 0.1));
  const intensity = round3(clamp(0.3 + Math.abs(score) * 0.1 + exclamations * 0.05 + urgency * 0.1, 0, 1));
  return { delta, intensity };
}

/** One word for how the agent feels, read from valence and arousal. */
export function describeMood(affect: AffectDimensions): string {
  const { valence, arousal } = affect;
  if (valence > 0.3) return arousal > 0.5 ? 'excited' : 'content';
  if (valence < -0.3) return arousal > 0.5 ? 'tense' : 'low';
  if (arousal > 0.6) return 'alert';
  return 'calm';
}
