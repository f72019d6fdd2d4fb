/** The budget on the wire (CONTRACT §4): money in USD, micro-dollars stay inside. */
import { z } from 'zod';
import { isoTime } from './iso-time.js';

/** `budget.status`: the day's cap, spend and state (CONTRACT §4). Money in USD on the wire, micro-dollars inside. */
export const BudgetStatusSchema = z.object({
  dailyCapUsd: z.number().nonnegative(),
  spentTodayUsd: z.number().nonnegative(),
  remainingUsd: z.number(),
  pct: z.number().nonnegative(),
  state: z.enum(['ok', 'winding_down', 'sleeping', 'exceeded']),
  timezone: z.string(),
  /** The next local midnight in `timezone`, when the daily spend resets. */
  resetsAt: isoTime,
  /** Today's top-ups (already part of the allowance: remaining = cap + top-ups − spent). */
  topUpUsd: z.number().nonnegative(),
  /** Spend since the agent last woke. */
  sessionCostUsd: z.number().nonnegative(),
  /** Today's prompt tokens read from the prompt cache, as a share (0 to 1) of all prompt tokens (input, cache reads and writes). */
  cacheReadShareToday: z.number().min(0).max(1),
});
export type BudgetStatus = z.infer<typeof BudgetStatusSchema>;

/** `budget.topUp` params: extra allowance for today. */
export const TopUpParamsSchema = z.object({ amountUsd: z.number().positive().max(1_000_000) });
export type TopUpParams = z.infer<typeof TopUpParamsSchema>;

/** `budget.setCap` params: the new daily cap. */
export const SetCapParamsSchema = z.object({ dailyCapUsd: z.number().positive().max(1_000_000) });
export type SetCapParams = z.infer<typeof SetCapParamsSchema>;
