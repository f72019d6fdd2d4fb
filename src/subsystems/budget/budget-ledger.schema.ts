/** What the budget ledger stores: each charge, each day's totals, the cap override, the wake signal and turn times. */
import { z } from 'zod';
import { TokenUsageSchema } from '../thinking/thinker.schema.js';

const microUsd = z.number().int().nonnegative();

/** One think's or task's cost, appended before its result is applied. */
export const LedgerChargeSchema = z.object({
  at: z.number(),
  dayKey: z.string(),
  /** `summary`: an update of the rolling conversation summary, a model call of its own; `embedding`: semantic search. */
  kind: z.enum(['think', 'task', 'summary', 'embedding']),
  model: z.string(),
  costMicroUsd: microUsd,
  usage: TokenUsageSchema,
});
export type LedgerCharge = z.infer<typeof LedgerChargeSchema>;

/** A day's running totals, rewritten in the same batch as each charge or top-up. */
export const LedgerDaySchema = z.object({
  dayKey: z.string(),
  spentMicroUsd: microUsd,
  topUpMicroUsd: microUsd,
  charges: z.number().int().nonnegative(),
  /** The day's prompt tokens by kind, for the share read from cache (absent in records older than the count: zero). */
  inputTokens: z.number().int().nonnegative().default(0),
  cacheReadTokens: z.number().int().nonnegative().default(0),
  cacheWriteTokens: z.number().int().nonnegative().default(0),
});
export type LedgerDay = z.infer<typeof LedgerDaySchema>;

/** A cap set at run time, and the configured cap it replaced (a changed configuration wins again). */
export const LedgerCapSchema = z.object({ capMicroUsd: microUsd, configuredCapMicroUsd: microUsd });
export type LedgerCap = z.infer<typeof LedgerCapSchema>;

/** A pending wake (a top-up while asleep), kept until the agent has woken. */
export const WakeSignalSchema = z.object({ requestedAt: z.number(), reason: z.enum(['top_up', 'manual']) });
export type WakeSignal = z.infer<typeof WakeSignalSchema>;
