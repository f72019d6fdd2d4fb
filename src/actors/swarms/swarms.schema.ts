/** Swarms: sub-agent tasks run concurrently up to a limit, with their results kept; state and events. */
import { z } from 'zod';

export const SwarmTaskStatusSchema = z.enum(['queued', 'running', 'done', 'failed']);
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
    task: z.object({ id: z.string().min(1), turnId: z.string(), prompt: z.string() }),
  }),
  z.object({ type: z.literal('swarm.started'), at: z.number(), id: z.string() }),
  z.object({ type: z.literal('swarm.succeeded'), at: z.number(), id: z.string(), result: z.string() }),
  z.object({ type: z.literal('swarm.failed'), at: z.number(), id: z.string(), error: z.string() }),
  /** The sense phase has taken these results in. */
  z.object({ type: z.literal('swarm.consumed'), at: z.number(), ids: z.array(z.string()) }),
  /** On restore: tasks that were running go back to the queue (by the same id). */
  z.object({ type: z.literal('swarm.requeue_running'), at: z.number() }),
]);
export type SwarmsEvent = z.infer<typeof SwarmsEventSchema>;
