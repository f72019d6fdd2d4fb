/** Swarms: sub-agent tasks run concurrently up to a limit, with their results kept; state and events. */
import { z } from 'zod';

/** `cancelled`: an operator's `tasks.cancel` dropped it (queued) or aborted it (running). */
export const SwarmTaskStatusSchema = z.enum(['queued', 'running', 'done', 'failed', 'cancelled']);
export type SwarmTaskStatus = z.infer<typeof SwarmTaskStatusSchema>;

/** One sub-agent task. Times are epoch ms. */
export const SwarmTaskSchema = z.object({
  id: z.string().min(1),
  /** The turn that spawned it; its result is reported back into that turn. */
  turnId: z.string(),
  prompt: z.string(),
  status: SwarmTaskStatusSchema,
  result: z.string().optional(),
  error: z.string().optional(),
  /** True once the result has been fed to a sense phase; consumed finished tasks may be forgotten. */
  consumed: z.boolean(),
  createdAt: z.number(),
  startedAt: z.number().optional(),
  finishedAt: z.number().optional(),
  /** The MCP tools (`mcp__SERVER__TOOL`) the task may call; absent or empty: none. */
  tools: z.array(z.string()).optional(),
  /** How long the task may run once started, in ms; absent in checkpoints written before tasks had deadlines. */
  deadlineMs: z.number().int().positive().optional(),
  /** Epoch ms the running task is cut off (its start plus `deadlineMs`). */
  deadlineAt: z.number().optional(),
  /** The most its model calls may cost, in integer micro-dollars. */
  maxCostMicroUsd: z.number().int().positive().optional(),
  /** What its model calls have cost so far, in integer micro-dollars (each call is in the budget ledger as it lands). */
  costMicroUsd: z.number().int().nonnegative().optional(),
});
export type SwarmTask = z.infer<typeof SwarmTaskSchema>;

/** The swarms actor's whole state: what a checkpoint stores. */
export const SwarmsStateSchema = z.object({
  concurrency: z.number().int().positive(),
  tasks: z.array(SwarmTaskSchema),
});
export type SwarmsState = z.infer<typeof SwarmsStateSchema>;

/** Events the swarms actor accepts; an event naming an unknown id changes nothing. */
export const SwarmsEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('swarm.spawn'),
    at: z.number(),
    task: z.object({
      id: z.string().min(1),
      turnId: z.string(),
      prompt: z.string(),
      tools: z.array(z.string()).optional(),
      deadlineMs: z.number().int().positive().optional(),
      maxCostMicroUsd: z.number().int().positive().optional(),
    }),
  }),
  z.object({ type: z.literal('swarm.started'), at: z.number(), id: z.string() }),
  z.object({ type: z.literal('swarm.succeeded'), at: z.number(), id: z.string(), result: z.string() }),
  z.object({ type: z.literal('swarm.failed'), at: z.number(), id: z.string(), error: z.string() }),
  /** One of the task's model calls cost this much (already in the ledger). */
  z.object({
    type: z.literal('swarm.charged'),
    at: z.number(),
    id: z.string(),
    costMicroUsd: z.number().int().nonnegative(),
  }),
  /** An operator cancelled a queued or running task. */
  z.object({ type: z.literal('swarm.cancelled'), at: z.number(), id: z.string(), reason: z.string() }),
  /** The sense phase has taken these results in. */
  z.object({ type: z.literal('swarm.consumed'), at: z.number(), ids: z.array(z.string()) }),
  /** On restore: tasks that were running go back to the queue (by the same id). */
  z.object({ type: z.literal('swarm.requeue_running'), at: z.number() }),
]);
export type SwarmsEvent = z.infer<typeof SwarmsEventSchema>;
