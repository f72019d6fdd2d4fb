/**
 * Long-term memory and the conversation as the think sees them: the memories and older messages recalled into each
 * think, and the search of both behind the `recall` tool.
 */
import type { ConversationMessage } from '../../protocol/conversation.schema.js';
import { interleaveByRank } from '../../shared/rank-interleave.js';
import type { ConversationSearch } from '../conversation/conversation-search.js';
import type { MemoryRecall, RecallHit } from '../thinking/recall-tool.js';
import type { RecalledMemory, RecalledMessage, ThinkInput } from '../thinking/thinker.schema.js';
import type { LongTermMemory } from './long-term-memory.js';
import type { MemoryHit } from './long-term-memory.types.js';
import { excerptAround, firstMatchAt, queryStems } from './recall-excerpt.js';
import {
  RECALL_MAX_MEMORIES,
  RECALL_MAX_MESSAGES,
  RECALL_MESSAGES_TOKEN_ALLOWANCE,
  recallQueryOf,
  selectRecalled,
  selectRecalledMessages,
} from './recall-selection.js';

// Searched deeper than shown, so a long memory skipped for the allowance can give way to shorter relevant ones.
const RECALL_SEARCH_DEPTH = RECALL_MAX_MEMORIES * 4;
// A recalled message's line besides its text: "- [msg-SEQ] conversation, user (from), TIME: " and the quotes.
const RECALLED_LINE_FRAME_TOKENS = 25;
// The asking turn's own messages (its question, an acknowledgement) are found and dropped: looked for this much deeper.
const ASKING_TURN_SLACK = 4;

const recalled = ({ memory }: MemoryHit): RecalledMemory => ({
  id: memory.id,
  content: memory.content,
  source: memory.source,
  createdAt: memory.createdAt,
});

/** A message of the log as a think is shown it again. */
export function recalledMessageOf(message: ConversationMessage): RecalledMessage {
  return {
    seq: message.seq,
    role: message.role,
    ...(message.from === undefined ? {} : { from: message.from }),
    text: message.text,
    at: message.at,
  };
}

/**
 * The `recall` tool's search over `memory` and, when given, the whole `conversation` (both wait for their index at
 * boot): the two rankings interleaved rank by rank, a memory first; what it finds of memory is in use at `now()`.
 */
export function memoryRecallOf(
  memory: LongTermMemory,
  now: () => number,
  conversation?: ConversationSearch,
): MemoryRecall {
  return {
    recall: async (query, limit, turnId) => {
      const [memories, messages] = await Promise.all([
        memory.search(query, limit),
        conversation === undefined
          ? Promise.resolve([])
          : conversation.search({ query, limit: limit + ASKING_TURN_SLACK }),
      ]);
      const found = memories.map(recalled);
      memory.noteRecalled(
        found.map((m) => m.id),
        now(),
      );
      const memoryHits = found.map((m): RecallHit => ({ source: 'memory', memory: m }));
      const messageHits = messages
        .filter((hit) => hit.message.turnId !== turnId)
        .map((hit): RecallHit => ({ source: 'conversation', message: recalledMessageOf(hit.message) }));
      return interleaveByRank(memoryHits, messageHits, limit);
    },
  };
}

/**
 * The memories recalled into a think: the most relevant to its pending messages and focus goal, within the recall
 * allowance. Synchronous, from the in-memory index; empty while the index is still being built after a boot.
 */
export function recallForThink(
  memory: LongTermMemory,
  input: Pick<ThinkInput, 'pendingMessages' | 'goals' | 'focusGoalId'>,
): RecalledMemory[] {
  const query = recallQueryOf(input);
  if (query === '') return [];
  return selectRecalled(memory.recall(query, RECALL_SEARCH_DEPTH));
}

/**
 * The older messages recalled into a think: the most relevant to its pending messages and focus goal among those its
 * prompt does not show (not in its recent conversation, not of the turns it answers), within their own allowance.
 * Only messages that say a word of the query themselves, each cut to an excerpt around it when long
 * (recall-excerpt.ts). Nothing while the conversation's index is still being built after a boot.
 */
export async function recallMessagesForThink(
  conversation: ConversationSearch,
  input: Pick<ThinkInput, 'pendingMessages' | 'goals' | 'focusGoalId' | 'conversation'>,
): Promise<RecalledMessage[]> {
  const query = recallQueryOf(input);
  if (query === '') return [];
  const shown = new Set((input.conversation?.recent ?? []).map((m) => m.seq));
  const answering = new Set(input.pendingMessages.map((m) => m.turnId));
  const hits = await conversation.recall(query, RECALL_MAX_MESSAGES * 4, shown);
  const stems = queryStems(query);
  const eachTokens = Math.floor(RECALL_MESSAGES_TOKEN_ALLOWANCE / RECALL_MAX_MESSAGES) - RECALLED_LINE_FRAME_TOKENS;
  const saying = hits.flatMap(({ message }) => {
    if (answering.has(message.turnId)) return [];
    const at = firstMatchAt(message.text, stems);
    if (at < 0) return [];
    return [{ ...recalledMessageOf(message), text: excerptAround(message.text, at, eachTokens) }];
  });
  return selectRecalledMessages(saying);
}
