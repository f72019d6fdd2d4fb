/**
 * What of an older message a think is shown when the message is recalled (pure). The index finds a message through
 * its own words and through what is said around it (the message before it is a field of its document, and
 * neighbours lend their scores): right for a search, where "Yes, last week!" should come up with the question it
 * answers, but a think shown that reply alone learns nothing and loses the room to the recent conversation. So a
 * think recalls only messages that say a word of its query themselves, and a long one as an excerpt around its first
 * such word, never skipped whole for its length (the fact in it is why it was found).
 */
import { estimateTokens } from '../thinking/token-estimate.js';
import { stemmedQueryWord, stemmedWithoutStopWords } from './text-analysis.js';

const WORD = /[\p{L}\p{N}]+/gu;
const ELLIPSIS = '…';
/** Of an excerpt's room, this share goes before the matched word (what leads up to it), the rest after. */
const LEAD_SHARE = 0.25;

/** The words of `query` as the conversation index looks them up: stems, without stop words or question words. */
export function queryStems(query: string): Set<string> {
  const stems = new Set<string>();
  for (const [word] of query.matchAll(WORD)) {
    const stem = stemmedQueryWord(word);
    if (stem !== null) stems.add(stem);
  }
  return stems;
}

/** Where in `text` the first word whose stem is in `stems` starts; -1 when `text` says none of them. */
export function firstMatchAt(text: string, stems: ReadonlySet<string>): number {
  if (stems.size === 0) return -1;
  for (const match of text.matchAll(WORD)) {
    const stem = stemmedWithoutStopWords(match[0]);
    if (stem !== null && stems.has(stem)) return match.index;
  }
  return -1;
}

/**
 * `text` within about `maxTokens` tokens (`estimateTokens`): whole when it fits; else the stretch around `at` (the
 * matched word: a quarter of the room before it, the rest after), cut at word boundaries, with "…" where it was cut.
 */
export function excerptAround(text: string, at: number, maxTokens: number): string {
  if (estimateTokens(text) <= maxTokens) return text;
  const anchor = Math.max(0, Math.min(at, text.length));
  // Room in characters from the text's own bytes per character; shrunk by a tenth until it fits (uneven multi-byte text).
  const bytesPerChar = Buffer.byteLength(text, 'utf8') / text.length;
  let room = Math.floor((maxTokens * 3) / bytesPerChar) - 2 * Buffer.byteLength(ELLIPSIS, 'utf8');
  for (;;) {
    const excerpt = excerptOf(text, anchor, Math.max(1, room));
    if (room <= 1 || estimateTokens(excerpt) <= maxTokens) return excerpt;
    room = Math.floor(room * 0.9);
  }
}

/** At most `room` characters of `text` around `anchor`, cut at word boundaries, with "…" where it was cut. */
function excerptOf(text: string, anchor: number, room: number): string {
  let start = Math.max(0, anchor - Math.floor(room * LEAD_SHARE));
  let end = Math.min(text.length, start + room);
  start = Math.max(0, end - room);
  if (start > 0) start = nextWordStart(text, start, anchor);
  if (end < text.length) end = previousWordEnd(text, end, start);
  return `${start > 0 ? ELLIPSIS : ''}${text.slice(start, end).trim()}${end < text.length ? ELLIPSIS : ''}`;
}

/** The start of the first whole word at or after `from` (not past `limit`). */
function nextWordStart(text: string, from: number, limit: number): number {
  let i = from;
  while (i < limit && /[\p{L}\p{N}]/u.test(text[i - 1] ?? '')) i += 1;
  return i;
}

/** The end of the last whole word before `to` (not before `limit`). */
function previousWordEnd(text: string, to: number, limit: number): number {
  let i = to;
  while (i > limit && /[\p{L}\p{N}]/u.test(text[i] ?? '')) i -= 1;
  return i > limit ? i : to;
}
