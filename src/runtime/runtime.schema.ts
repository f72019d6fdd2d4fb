/** The runtime facade's results as zod schemas: the single source of the RPC wire types (CONTRACT §4). */
import { z } from 'zod';
import { GoalPrioritySchema, GoalStatusSchema } from '../actors/goals/goals.schema.js';

const isoTime = z.string().datetime({ offset: true });

/** `heartbeat.status`. */
export const HeartbeatStatusSchema = z.object({
  beatCount: z.number().int().nonnegative(),
  phase: z.enum(['sense', 'think', 'integrate', 'sleep', 'dormant', 'paused', 'stopped']),
  state: z.enum(['awake', 'dormant']),
  /** Seed 002's status: working while a think runs, wrapping up once told to wind down, else idle. */
  activity: z.enum(['idle', 'working', 'wrapping_up']),
  intervalMs: z.number().nonnegative(),
  startedAt: isoTime,
  restoredFrom: z.string().nullable(),
  unreadReplies: z.number().int().nonnegative(),
  /** User messages waiting for an answer. */
  pendingMessages: z.number().int().nonnegative(),
  consecutiveFailures: z.number().int().nonnegative(),
  thinker: z.string(),
  version: z.string(),
});
export type HeartbeatStatus = z.infer<typeof HeartbeatStatusSchema>;

/** One entry of `checkpoint.list`. */
export const CheckpointSummarySchema = z.object({
  id: z.string(),
  createdAt: isoTime,
  beatCount: z.number().int().nonnegative(),
  sizeBytes: z.number().int().nonnegative(),
  formatVersion: z.number().int().positive(),
});
export type CheckpointSummary = z.infer<typeof CheckpointSummarySchema>;

/** `checkpoint.create`. */
export const CheckpointCreatedSchema = z.object({
  id: z.string(),
  beatCount: z.number().int().nonnegative(),
  sizeBytes: z.number().int().nonnegative(),
});
export type CheckpointCreated = z.infer<typeof CheckpointCreatedSchema>;

/** `checkpoint.restore` once done. */
export const CheckpointRestoredSchema = z.object({ restored: z.string(), beatCount: z.number().int().nonnegative() });
export type CheckpointRestored = z.infer<typeof CheckpointRestoredSchema>;

/** A goal on the wire (`dueAt` as ISO time). */
export const GoalViewSchema = z.object({
  id: z.string(),
  title: z.string(),
  priority: GoalPrioritySchema,
  progress: z.number().min(0).max(1),
  status: GoalStatusSchema,
  dueAt: isoTime.optional(),
});
export type GoalView = z.infer<typeof GoalViewSchema>;

/** `goals.add` params. */
export const AddGoalParamsSchema = z.object({
  title: z.string().trim().min(1).max(500),
  priority: GoalPrioritySchema.optional(),
  dueAt: isoTime.optional(),
});
export type AddGoalParams = z.infer<typeof AddGoalParamsSchema>;

/** A working-memory item on the wire. */
export const MemoryItemViewSchema = z.object({
  id: z.string(),
  content: z.string(),
  salience: z.number().min(0).max(1),
  createdAt: isoTime,
});
export type MemoryItemView = z.infer<typeof MemoryItemViewSchema>;

/** `affect.get`: the five dimensions, the derived emotion and the baseline. */
export const AffectViewSchema = z.object({
  valence: z.number(),
  arousal: z.number(),
  dominance: z.number(),
  certainty: z.number(),
  goalCongruence: z.number(),
  emotion: z.string(),
  baseline: z.object({
    valence: z.number(),
    arousal: z.number(),
    dominance: z.number(),
    certainty: z.number(),
    goalCongruence: z.number(),
  }),
});
export type AffectView = z.infer<typeof AffectViewSchema>;

/** `agent.send` params. */
export const SendParamsSchema = z.object({
  text: z.string().min(1).max(100_000),
  from: z.string().min(1).max(200).optional(),
});
export type SendParams = z.infer<typeof SendParamsSchema>;

/** `agent.send` result. */
export const SendResultSchema = z.object({ turnId: z.string() });
export type SendResult = z.infer<typeof SendResultSchema>;

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
});
export type BudgetStatus = z.infer<typeof BudgetStatusSchema>;

/** `budget.topUp` params: extra allowance for today. */
export const TopUpParamsSchema = z.object({ amountUsd: z.number().positive().max(1_000_000) });
export type TopUpParams = z.infer<typeof TopUpParamsSchema>;

/** `budget.setCap` params: the new daily cap. */
export const SetCapParamsSchema = z.object({ dailyCapUsd: z.number().positive().max(1_000_000) });
export type SetCapParams = z.infer<typeof SetCapParamsSchema>;

/** `checkpoint.list` params. */
export const ListCheckpointsParamsSchema = z.object({ limit: z.number().int().min(1).max(10_000).optional() });
export type ListCheckpointsParams = z.infer<typeof ListCheckpointsParamsSchema>;

/** Params naming one checkpoint (`checkpoint.get`, `checkpoint.export`). */
export const CheckpointIdParamsSchema = z.object({ id: z.string().min(1).max(200) });
export type CheckpointIdParams = z.infer<typeof CheckpointIdParamsSchema>;

/** `checkpoint.restore` params: without `confirm: true` the answer is the -32001 confirmation error. */
export const RestoreParamsSchema = z.object({ id: z.string().min(1).max(200), confirm: z.boolean().optional() });
export type RestoreParams = z.infer<typeof RestoreParamsSchema>;

/** The -32001 error's `data`: what a confirmed restore would bring back. */
export const RestoreConfirmationSchema = z.object({ id: z.string(), beatCount: z.number().int().nonnegative(), createdAt: isoTime });
export type RestoreConfirmation = z.infer<typeof RestoreConfirmationSchema>;

/** `goals.complete` params. */
export const GoalIdParamsSchema = z.object({ id: z.string().min(1).max(200) });
export type GoalIdParams = z.infer<typeof GoalIdParamsSchema>;
