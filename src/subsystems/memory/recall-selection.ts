/**
 * Which long-term memories a think is shown (pure): those most relevant to its pending messages and focus goal,
 * within a small token allowance of the prompt, so recall never crowds out the conversation.
 */
import { estimateTokens } from '../thinking/token-estimate.js';
import { recalledMessageLine } from '../thinking/recall-tool.js';
import type { RecalledMemory, RecalledMessage, ThinkInput } from '../thinking/thinker.schema.js';
import type { MemoryHit } from './long-term-memory.types.js';

/** At most this many memories are recalled into one think. */
export const RECALL_MAX_MEMORIES = 5;

/** The recalled memories of one think take at most about this many tokens of the prompt. */
export const RECALL_TOKEN_ALLOWANCE = 600;

/** At most this many older messages (that left the prompt's recent conversation) are recalled into one think. */
export const RECALL_MAX_MESSAGES = 3;

/** The recalled messages of one think take at most about this many tokens of the prompt. */
export const RECALL_MESSAGES_TOKEN_ALLOWANCE = 400;

/** Longest query a think's recall sends to the index (the first characters of its messages and goal). */
const RECALL_QUERY_MAX_CHARS = 2_000;

/** What a think's recall searches for: its pending messages' text and its focus goal's title; empty: recall nothing. */
export function recallQueryOf(input: Pick<ThinkInput, 'pendingMessages' | 'goals' | 'focusGoalId'>): string {
  const focus = input.goals.find((goal) => goal.id === input.focusGoalId);
  const parts = [...input.pendingMessages.map((m) => m.text), ...(focus === undefined ? [] : [focus.title])];
  return parts.join('\n').slice(0, RECALL_QUERY_MAX_CHARS).trim();
}

/** How a recalled memory is counted against the allowance: about the line the prompt renders for it. */
export function recalledMemoryTokens(memory: RecalledMemory): number {
  return estimateTokens(
    `- [${memory.id}] ${memory.source}, ${new Date(memory.createdAt).toISOString()}: ${JSON.stringify(memory.content)}`,
  );
}

/**
 * The hits, best first, as the think is shown them: at most `maxMemories`, and only while their lines fit in
 * `allowanceTokens` (a memory too long for what is left is skipped; a shorter, less relevant one may still fit).
 */
export function selectRecalled(
  hits: readonly MemoryHit[],
  allowanceTokens = RECALL_TOKEN_ALLOWANCE,
  maxMemories = RECALL_MAX_MEMORIES,
): RecalledMemory[] {
  const out: RecalledMemory[] = [];
  let left = allowanceTokens;
  for (const { memory } of hits) {
    if (out.length >= maxMemories) break;
    const recalled: RecalledMemory = {
      id: memory.id,
      content: memory.content,
      source: memory.source,
      createdAt: memory.createdAt,
    };
    const cost = recalledMemoryTokens(recalled);
    if (cost > left) continue;
    out.push(recalled);
    left -= cost;
  }
  return out;
}

/**
 * The older messages, best first, as the think is shown them: at most `maxMessages`, and only while their lines fit in
 * `allowanceTokens` (a message too long for what is left is skipped; a shorter one may still fit).
 */
export function selectRecalledMessages(
  messages: readonly RecalledMessage[],
  allowanceTokens = RECALL_MESSAGES_TOKEN_ALLOWANCE,
  maxMessages = RECALL_MAX_MESSAGES,
): RecalledMessage[] {
  const out: RecalledMessage[] = [];
  let left = allowanceTokens;
  for (const message of messages) {
    if (out.length >= maxMessages) break;
    const cost = estimateTokens(`- ${recalledMessageLine(message)}`);
    if (cost > left) continue;
    out.push(message);
    left -= cost;
  }
  return out;
}
