/** Conversation entries as summary lines, and the deterministic extractive summary the offline thinker keeps. */
import type { ConversationMessage } from '../../protocol/conversation.schema.js';
import { excerpt } from './offline-text.js';
import type { SummaryRequest, SummaryResult } from './summary-request.js';
import { truncateToTokens } from './token-truncate.js';
import { TokenCalibration } from './token-calibration.js';
import { ZERO_USAGE } from './thinker.schema.js';

/** How much of one entry an extractive line keeps. */
const EXTRACT_CHARS = 240;
const DROPPED_LINE = /^\(entries through seq (\d+) dropped for room\)$/;

/** One entry as a line for the summarizer: seq, day, who, and its text (cut to `maxTokens` when given). */
export function summaryEntryLine(m: ConversationMessage, text: string = m.text): string {
  const day = new Date(m.at).toISOString().slice(0, 10);
  const who =
    m.role === 'user'
      ? `user ${JSON.stringify(m.from ?? 'user')}`
      : m.unanswered === undefined
        ? 'you'
        : `you (unanswered, ${m.unanswered.code})`;
  return `- [${m.seq}] ${day} ${who}: ${text}`;
}

/**
 * The offline summary: every entry's first words kept as a line, in order, appended to the previous summary; when
 * over `maxSummaryTokens`, the oldest lines go first and a line says through which seq. Same input, same output.
 */
export function extractiveSummary(request: SummaryRequest, counter = new TokenCalibration()): SummaryResult {
  const previous = request.previous.split('\n').filter((line) => line.trim() !== '');
  let droppedThrough = 0;
  const kept: string[] = [];
  for (const line of previous) {
    const dropped = DROPPED_LINE.exec(line);
    if (dropped !== null) droppedThrough = Math.max(droppedThrough, Number(dropped[1]));
    else kept.push(line);
  }
  for (const m of request.messages) kept.push(summaryEntryLine(m, excerpt(m.text, EXTRACT_CHARS)));
  const render = () =>
    [...(droppedThrough > 0 ? [`(entries through seq ${droppedThrough} dropped for room)`] : []), ...kept].join('\n');
  let text = render();
  while (kept.length > 1 && counter.count(text) > request.maxSummaryTokens) {
    const oldest = kept.shift()!;
    droppedThrough = Math.max(droppedThrough, Number(/^- \[(\d+)\]/.exec(oldest)?.[1] ?? droppedThrough));
    text = render();
  }
  return {
    text: truncateToTokens(text, request.maxSummaryTokens, counter),
    model: 'extractive',
    usage: { ...ZERO_USAGE },
    costMicroUsd: 0,
  };
}
