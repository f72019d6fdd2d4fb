/** The wire shapes of the tasks area (CONTRACT §8): `tasks.list` and `tasks.cancel`. */
import { z } from 'zod';
import { SwarmTaskStatusSchema } from '../actors/swarms/swarms.schema.js';
import { isoTime } from './iso-time.js';

/** One sub-agent task as clients see it. */
export const TaskViewSchema = z.object({
  id: z.string(),
  /** `queued`, `running`, `done`, `failed` or `cancelled`. */
  status: SwarmTaskStatusSchema,
  prompt: z.string(),
  /** The turn whose think spawned it; its outcome is reported back into that turn. */
  turnId: z.string(),
  /** The MCP tools it may call (`mcp__SERVER__TOOL`); empty: none. */
  tools: z.array(z.string()),
  createdAt: isoTime,
  startedAt: isoTime.optional(),
  finishedAt: isoTime.optional(),
  /** While it runs: when it is cut off. */
  deadlineAt: isoTime.optional(),
  /** Its deadline once started, in seconds. */
  deadlineSeconds: z.number().positive(),
  /** What its model calls have cost so far (each is in the daily budget ledger as it lands). */
  costUsd: z.number().nonnegative(),
  /** Its money cap: it ends with what it has once its spend reaches this. */
  maxCostUsd: z.number().positive(),
  /** Its answer, once done. */
  result: z.string().optional(),
  /** Why it failed or was cancelled. */
  error: z.string().optional(),
});
export type TaskView = z.infer<typeof TaskViewSchema>;

/** `tasks.cancel` params. */
export const TaskIdParamsSchema = z.object({ id: z.string().min(1).max(200) });
export type TaskIdParams = z.infer<typeof TaskIdParamsSchema>;
