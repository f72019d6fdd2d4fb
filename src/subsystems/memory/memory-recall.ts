/** Long-term memory as the think sees it: the memories recalled into each think, and the search behind the `recall` tool. */
import type { MemoryRecall } from '../thinking/recall-tool.js';
import type { RecalledMemory, ThinkInput } from '../thinking/thinker.schema.js';
import type { LongTermMemory } from './long-term-memory.js';
import type { MemoryHit } from './long-term-memory.types.js';
import { RECALL_MAX_MEMORIES, recallQueryOf, selectRecalled } from './recall-selection.js';

// Searched deeper than shown, so a long memory skipped for the allowance can give way to shorter relevant ones.
const RECALL_SEARCH_DEPTH = RECALL_MAX_MEMORIES * 4;

const recalled = ({ memory }: MemoryHit): RecalledMemory => ({
  id: memory.id,
  content: memory.content,
  source: memory.source,
  createdAt: memory.createdAt,
});

/** The `recall` tool's search over `memory` (waits for the index at boot); what it finds is in use at `now()`. */
export function memoryRecallOf(memory: LongTermMemory, now: () => number): MemoryRecall {
  return {
    recall: async (query, limit) => {
      const found = (await memory.search(query, limit)).map(recalled);
      memory.noteRecalled(
        found.map((m) => m.id),
        now(),
      );
      return found;
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
