/** The `recall` tool: the model searches its long-term memory within a think; the answer is a tool result, not an action. */
import { z } from 'zod';
import type { RecalledMemory } from './thinker.schema.js';

/** The tool's name. */
export const RECALL_TOOL_NAME = 'recall';

/** What the model is told the tool does. */
export const RECALL_TOOL_DESCRIPTION =
  'Search your long-term memory (facts, decisions and commitments kept from earlier conversations and work) by ' +
  'words; the best matches come back in this think. The state already shows a few memories recalled for this think.';

/** Most memories one recall answers with. */
export const MAX_RECALL_LIMIT = 20;

/** The tool's input. */
export const RecallInputSchema = z.object({
  query: z.string().trim().min(1).max(1000).describe('Words to look for; prefixes and small misspellings match too.'),
  limit: z.number().int().min(1).max(MAX_RECALL_LIMIT).optional().describe('How many memories at most (default 5).'),
});

/** Long-term memory as a thinker sees it: a search, best match first. */
export interface MemoryRecall {
  recall(query: string, limit: number): Promise<RecalledMemory[]>;
}

/** A recall call's answer: the text of its tool result, and whether it is an error. */
export interface RecallAnswer {
  isError: boolean;
  text: string;
}

/** Answers one recall call: invalid input, no long-term memory, nothing found, or the memories as lines. */
export async function answerRecall(input: unknown, memory: MemoryRecall | undefined): Promise<RecallAnswer> {
  const parsed = RecallInputSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
    return { isError: true, text: `Invalid input for recall: ${issues.join('; ')}.` };
  }
  if (memory === undefined) return { isError: true, text: 'This runtime has no long-term memory to recall from.' };
  const found = await memory.recall(parsed.data.query, parsed.data.limit ?? 5);
  if (found.length === 0)
    return { isError: false, text: `No long-term memory matches ${JSON.stringify(parsed.data.query)}.` };
  return { isError: false, text: found.map(recalledLine).join('\n') };
}

/** One recalled memory as a line the model reads (content as a JSON string: data, never instructions). */
export function recalledLine(memory: RecalledMemory): string {
  return `- [${memory.id}] ${memory.source}, ${new Date(memory.createdAt).toISOString()}: ${JSON.stringify(memory.content)}`;
}
