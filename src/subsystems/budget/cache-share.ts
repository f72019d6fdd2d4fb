/** The share of a day's prompt tokens read from the prompt cache: how well caching is paying off. */
import type { LedgerDay } from './budget-ledger.schema.js';

/**
 * Cache reads over all prompt tokens (fresh input + cache reads + cache writes) of the day, 0 to 1, to four decimals;
 * 0 for a day without any. Writes count against it: a prefix rewritten every think is not a cache that works.
 */
export function cacheReadShare(day: Pick<LedgerDay, 'inputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'>): number {
  const prompt = day.inputTokens + day.cacheReadTokens + day.cacheWriteTokens;
  return prompt === 0 ? 0 : Math.round((day.cacheReadTokens / prompt) * 10_000) / 10_000;
}
