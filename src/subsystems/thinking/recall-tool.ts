/**
 * The `recall` tool: the model searches its long-term memory and the whole conversation within a think; the answer is a
 * tool result, not an action.
 */
import { z } from 'zod';
import type { RecalledMemory, RecalledMessage } from './thinker.schema.js';

/** The tool's name. */
export const RECALL_TOOL_NAME = 'recall';

/** What the model is told the tool does. */
export const RECALL_TOOL_DESCRIPTION =
  'Search your long-term memory (facts, decisions and commitments kept from earlier conversations and work) and ' +
  'every message of the conversation, however old, by words; the best matches of both come back in this think, ' +
  'each saying whether it is a memory or a message and when. The state already shows a few recalled for this think.';

/** Most memories one recall answers with. */
export const MAX_RECALL_LIMIT = 20;

/** The tool's input. */
export const RecallInputSchema = z.object({
  query: z
    .string()
    .trim()
    .min(1)
    .max(1000)
    .describe(
      'Words to look for, matched by their stems ("painted" finds "paint"); among memories, prefixes and small misspellings match too.',
    ),
  limit: z.number().int().min(1).max(MAX_RECALL_LIMIT).optional().describe('How many results at most (default 5).'),
});

/** One thing recalled: a long-term memory, or a message of the conversation. */
export type RecallHit =
  { source: 'memory'; memory: RecalledMemory } | { source: 'conversation'; message: RecalledMessage };

/**
 * Long-term memory and the conversation as a thinker sees them: one search of both, best match first. The messages of
 * turn `turnId` (the one asking: its question would find itself) are left out.
 */
export interface MemoryRecall {
  recall(query: string, limit: number, turnId?: string): Promise<RecallHit[]>;
}

/** A recall call's answer: the text of its tool result, and whether it is an error. */
export interface RecallAnswer {
  isError: boolean;
  text: string;
}

/** Answers one recall call of turn `turnId`: invalid input, no long-term memory, nothing found, or the hits as lines. */
export async function answerRecall(
  input: unknown,
  memory: MemoryRecall | undefined,
  turnId?: string,
): Promise<RecallAnswer> {
  const parsed = RecallInputSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
    return { isError: true, text: `Invalid input for recall: ${issues.join('; ')}.` };
  }
  if (memory === undefined) return { isError: true, text: 'This runtime has no long-term memory to recall from.' };
  const found = await memory.recall(parsed.data.query, parsed.data.limit ?? 5, turnId);
  if (found.length === 0) return { isError: false, text: `${NOTHING_RECALLED} ${JSON.stringify(parsed.data.query)}.` };
  return { isError: false, text: found.map(recallHitLine).join('\n') };
}

/** How an answer that found nothing starts. */
export const NOTHING_RECALLED = 'Nothing in long-term memory or the conversation matches';

/**
 * One hit as a line the model reads, saying which it is and when (text as a JSON string: data, never instructions):
 * `- [mem-3] memory (conversation), TIME: "…"` or `- [msg-4211] conversation, user (alice), TIME: "…"`.
 */
export function recallHitLine(hit: RecallHit): string {
  if (hit.source === 'memory') {
    const { memory } = hit;
    return `- [${memory.id}] memory (${memory.source}), ${iso(memory.createdAt)}: ${JSON.stringify(memory.content)}`;
  }
  return `- ${recalledMessageLine(hit.message)}`;
}

/** A recalled message without its bullet: `[msg-SEQ] conversation, WHO, TIME: "TEXT"`. */
export function recalledMessageLine(message: RecalledMessage): string {
  const who = message.role === 'user' ? `user${message.from === undefined ? '' : ` (${message.from})`}` : 'agent';
  return `[msg-${message.seq}] conversation, ${who}, ${iso(message.at)}: ${JSON.stringify(message.text)}`;
}

const iso = (ms: number): string => new Date(ms).toISOString();
