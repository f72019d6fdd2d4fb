/** Small deterministic text helpers for the offline thinker: excerpts, key terms, percentages. */

/** `text` with whitespace collapsed, cut to `max` code points (never splitting a surrogate pair) with an ellipsis. */
export function excerpt(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const points = Array.from(flat);
  return points.length <= max
    ? flat
    : `${points
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

/** `text` trimmed of surrounding whitespace and trailing sentence punctuation, for use as a title or subject. */
export function subjectOf(text: string, max = 120): string {
  return excerpt(text.replace(/[\s.!?;,:]+$/u, ''), max);
}

const STOPWORDS = new Set([
  'about',
  'after',
  'also',
  'been',
  'does',
  'from',
  'have',
  'into',
  'just',
  'more',
  'most',
  'much',
  'only',
  'over',
  'some',
  'such',
  'than',
  'that',
  'their',
  'them',
  'then',
  'there',
  'these',
  'they',
  'this',
  'very',
  'what',
  'when',
  'where',
  'which',
  'while',
  'will',
  'with',
  'would',
  'your',
  'could',
  'should',
  'please',
  'research',
]);

/** Up to `max` distinct words of four letters or more, in order of first appearance, skipping common function words. */
export function keyTerms(text: string, max = 5): string[] {
  const terms: string[] = [];
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? []) {
    if (Array.from(word).length < 4 || STOPWORDS.has(word) || terms.includes(word)) continue;
    terms.push(word);
    if (terms.length === max) break;
  }
  return terms;
}

/** A 0..1 fraction as a whole percentage, e.g. `40%`. */
export function percent(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}
