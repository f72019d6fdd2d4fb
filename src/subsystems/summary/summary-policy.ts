/**
 * When the rolling summary is updated, and with what, pure. The newest entries after the summary's watermark form
 * the window a prompt shows whole; once what lies beyond it is big enough, its oldest part is folded into the
 * summary, in chunks that fit one bounded request.
 */
import type { ConversationMessage } from '../../protocol/conversation.schema.js';
import type { TokenCalibration } from '../thinking/token-calibration.js';

/** Shares of `VIGIL_CONTEXT_TOKENS`. */
export const SUMMARY_SHARES = {
  /** The recent window kept out of the summary: what a think's prompt can show whole. */
  window: 0.2,
  /** Beyond the window, this much waits before an update runs (fewer, larger updates cost less). */
  threshold: 0.05,
  /** The summary itself at most (the prompt builder gives it more room than this, so it is shown whole). */
  summary: 0.15,
  /** New entries in one update's request. */
  chunk: 0.5,
} as const;

/** Besides tokens, this many entries beyond the window also make an update due. */
const THRESHOLD_ENTRIES = 24;
/** An entry's line around its text: seq, day, sender. */
const LINE_TOKENS = 16;

/** An update to run: fold `messages` (oldest first) into the summary. */
export interface SummaryPlan {
  messages: ConversationMessage[];
  /** The new watermark: the last of them. */
  throughSeq: number;
}

/** The summary's size bound for `contextTokens`. */
export function maxSummaryTokens(contextTokens: number): number {
  return Math.floor(contextTokens * SUMMARY_SHARES.summary);
}

/**
 * The update due for `tail` (the entries after the watermark, oldest first), or null when the entries beyond the
 * window are still too few. A single entry larger than a chunk goes alone (the request cuts its text).
 */
export function planSummaryUpdate(
  tail: readonly ConversationMessage[],
  contextTokens: number,
  counter: TokenCalibration,
): SummaryPlan | null {
  const windowTokens = contextTokens * SUMMARY_SHARES.window;
  let inWindow = 0;
  let boundary = tail.length;
  while (boundary > 0) {
    const tokens = counter.count(tail[boundary - 1]!.text) + LINE_TOKENS;
    if (inWindow + tokens > windowTokens) break;
    inWindow += tokens;
    boundary -= 1;
  }
  const outside = tail.slice(0, boundary);
  if (outside.length === 0) return null;
  const outsideTokens = outside.reduce((sum, m) => sum + counter.count(m.text) + LINE_TOKENS, 0);
  if (outsideTokens < contextTokens * SUMMARY_SHARES.threshold && outside.length < THRESHOLD_ENTRIES) return null;
  const chunkTokens = contextTokens * SUMMARY_SHARES.chunk;
  const messages: ConversationMessage[] = [];
  let used = 0;
  for (const m of outside) {
    const tokens = counter.count(m.text) + LINE_TOKENS;
    if (messages.length > 0 && used + tokens > chunkTokens) break;
    messages.push(m);
    used += tokens;
  }
  return { messages, throughSeq: messages[messages.length - 1]!.seq };
}
