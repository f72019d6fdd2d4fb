/** Budget: today's spending against the daily cap in the budget's time zone; its state and events. Money in micro-dollars. */
import { z } from 'zod';

const microUsd = z.number().int().nonnegative();

/** The budget actor's whole state: what a checkpoint stores (the ledger in LevelDB is the durable record of spend). */
export const BudgetStateSchema = z.object({
  /** IANA zone whose midnight starts a new budget day. */
  timezone: z.string().min(1),
  /** The local date (`YYYY-MM-DD` in `timezone`) the spend below belongs to. */
  dayKey: z.string(),
  dailyCapMicroUsd: microUsd,
  /** Extra allowance for today from top-ups; gone at the next local midnight. */
  topUpMicroUsd: microUsd,
  spentTodayMicroUsd: microUsd,
  /** Spend since the agent last woke. */
  sessionCostMicroUsd: microUsd,
  /** The heartbeat is dormant for budget reasons. */
  sleeping: z.boolean(),
  /** The hard stop was hit; cleared by a top-up or a new day. */
  exceeded: z.boolean(),
  /** The wrap-up notice has been given for this allowance. */
  windDownNotified: z.boolean(),
  /** A top-up arrived while asleep: the heartbeat wakes at once. */
  wakeRequested: z.boolean(),
  /** Epoch ms of the last change. */
  updatedAt: z.number(),
});
export type BudgetState = z.infer<typeof BudgetStateSchema>;

/** Events the budget actor accepts; time arrives on the event. */
export const BudgetEventSchema = z.discriminatedUnion('type', [
  /** A think or task cost money (already in the ledger). */
  z.object({ type: z.literal('budget.charge'), at: z.number(), costMicroUsd: microUsd }),
  /** Start a new day if `at` falls on a later local date. */
  z.object({ type: z.literal('budget.roll_day'), at: z.number() }),
  z.object({ type: z.literal('budget.top_up'), at: z.number(), amountMicroUsd: microUsd }),
  z.object({ type: z.literal('budget.set_cap'), at: z.number(), capMicroUsd: microUsd }),
  z.object({ type: z.literal('budget.wind_down_notified'), at: z.number() }),
  z.object({ type: z.literal('budget.sleep'), at: z.number(), exceeded: z.boolean() }),
  z.object({ type: z.literal('budget.wake'), at: z.number() }),
]);
export type BudgetEvent = z.infer<typeof BudgetEventSchema>;

/** The thresholds, in percent of today's allowance (CONTRACT §3). */
export interface BudgetLimits {
  windDownPct: number;
  hardStopPct: number;
}
