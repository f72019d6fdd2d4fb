/** Text cut to a token bound with a note on what was left out: the one cut every prompt and summary uses. */
import type { TokenCalibration } from './token-calibration.js';

/**
 * `text` cut so that `counter.count` of the result (note included) is at most `maxTokens`, with a note saying how
 * much was left out; unchanged when it fits. Cuts at code points, never inside a surrogate pair.
 */
export function truncateToTokens(text: string, maxTokens: number, counter: TokenCalibration): string {
  if (counter.count(text) <= maxTokens) return text;
  const points = Array.from(text);
  const note = (shown: number) => ` […truncated by Vigil: ${shown} of ${points.length} characters shown]`;
  const noteTokens = counter.count(note(points.length));
  // Every code point is at least one byte (up to six JSON-escaped): start from the byte room and shrink.
  let keep = Math.max(0, Math.min(points.length, Math.floor(((maxTokens - noteTokens) * 3) / counter.factor)));
  for (;;) {
    const cut = points.slice(0, keep).join('') + note(keep);
    const over = counter.count(cut) - maxTokens;
    if (over <= 0 || keep === 0) return cut;
    keep = Math.max(0, keep - Math.max(1, Math.ceil((over * 3) / 6)));
  }
}
