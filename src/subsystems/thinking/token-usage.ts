/** Token usage arithmetic shared by every thinker, whatever the provider's own usage report looks like. */
import type { TokenUsage } from './thinker.schema.js';

/** The sum of several calls' usage. */
export function sumUsage(calls: readonly TokenUsage[]): TokenUsage {
  return calls.reduce(
    (sum, u) => ({
      inputTokens: sum.inputTokens + u.inputTokens,
      outputTokens: sum.outputTokens + u.outputTokens,
      cacheWriteTokens: sum.cacheWriteTokens + u.cacheWriteTokens,
      cacheReadTokens: sum.cacheReadTokens + u.cacheReadTokens,
    }),
    { inputTokens: 0, outputTokens: 0, cacheWriteTokens: 0, cacheReadTokens: 0 },
  );
}
