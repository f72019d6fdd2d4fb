/** Long-term memory: the stored record, and `memory.search` / `memory.forget` on the wire. */
import { z } from 'zod';
import { isoTime } from './iso-time.js';

/**
 * Where a long-term memory came from: `conversation` (kept by the model while answering a user), `working_memory`
 * (consolidated as it left working memory), `task` (kept during autonomous work or from a sub-agent's result),
 * `tool` (kept from a tool's result).
 */
export const MemorySourceSchema = z.enum(['conversation', 'working_memory', 'task', 'tool']);
export type MemorySource = z.infer<typeof MemorySourceSchema>;

/** The sources the model can name for a fact it keeps (working memory is where a kept fact goes, not where it came from). */
export const KeptMemorySourceSchema = MemorySourceSchema.exclude(['working_memory']);
export type KeptMemorySource = z.infer<typeof KeptMemorySourceSchema>;

/** One long-term memory as stored (a LevelDB value under its seq; no user text is ever part of a key). */
export const StoredMemorySchema = z.object({
  /** `mem-<seq>`: stable in this data dir; an import gives the memory a new one. */
  id: z.string().min(1),
  /** The store's running number; a checkpoint's memory watermark is the highest seq issued when it was taken. */
  seq: z.number().int().positive(),
  content: z.string().min(1),
  source: MemorySourceSchema,
  salience: z.number().min(0).max(1),
  /** Epoch ms of the first time it was kept. */
  createdAt: z.number(),
  /** Epoch ms of the last time it was kept again (the same fact twice is one memory, refreshed). */
  updatedAt: z.number(),
  /**
   * Epoch ms of the last time the agent used it (recalled into a think, or found by its `recall` tool), to a day's
   * precision: retention counts a memory in use as fresh (absent: never used since it was kept).
   */
  recalledAt: z.number().optional(),
});
export type StoredMemory = z.infer<typeof StoredMemorySchema>;

/** Most hits `memory.search` answers with. */
export const MAX_MEMORY_SEARCH_LIMIT = 100;

/** `memory.search` params. */
export const MemorySearchParamsSchema = z.object({
  query: z.string().trim().min(1).max(1000),
  /** Hits wanted, best first (default 10). */
  limit: z.number().int().min(1).max(MAX_MEMORY_SEARCH_LIMIT).optional(),
});
export type MemorySearchParams = z.infer<typeof MemorySearchParamsSchema>;

/** One `memory.search` hit. */
export const MemorySearchHitSchema = z.object({
  id: z.string(),
  content: z.string(),
  /** BM25 relevance (with prefix and fuzzy matches weighted down); higher is better, comparable within one search. */
  score: z.number(),
  createdAt: isoTime,
  source: MemorySourceSchema,
  updatedAt: isoTime,
  salience: z.number().min(0).max(1),
  /** The last day the agent used it (recalled into a think, or found by its `recall` tool); absent: never since kept. */
  recalledAt: isoTime.optional(),
});
export type MemorySearchHit = z.infer<typeof MemorySearchHitSchema>;

/** `memory.forget` params. */
export const MemoryForgetParamsSchema = z.object({ id: z.string().min(1).max(200) });
export type MemoryForgetParams = z.infer<typeof MemoryForgetParamsSchema>;

/** `memory.forget` result: the id, gone from the store, the index and every later prompt. */
export const MemoryForgetResultSchema = z.object({ forgotten: z.string() });
export type MemoryForgetResult = z.infer<typeof MemoryForgetResultSchema>;
