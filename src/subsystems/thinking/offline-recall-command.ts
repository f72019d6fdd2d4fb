/** The offline thinker's `/recall QUERY` command: searches long-term memory and the conversation, replies with what it found. */
import { answerRecall, NOTHING_RECALLED, type MemoryRecall } from './recall-tool.js';
import type { PendingMessage, ThinkAction } from './thinker.schema.js';

const COMMAND = /^\/recall(?:\s+([\s\S]*))?$/;

/** The query of a `/recall` message (possibly empty), or undefined when the message is not one. */
export function parseRecallCommand(text: string): string | undefined {
  const match = COMMAND.exec(text.trim());
  return match === null ? undefined : (match[1] ?? '').trim();
}

/** Replies to a `/recall` message with the memories and messages found (at most 5), or why there are none. */
export async function answerRecallCommand(
  message: PendingMessage,
  query: string,
  memory: MemoryRecall | undefined,
): Promise<ThinkAction[]> {
  const answer = await answerRecall({ query }, memory, message.turnId);
  const text =
    answer.isError || answer.text.startsWith(NOTHING_RECALLED)
      ? answer.text
      : `From long-term memory and the conversation:\n${answer.text}`;
  return [{ type: 'reply', turnId: message.turnId, text }];
}
