/** An A2A task as Vigil stores it (`a2a-tasks` sublevel): whose it is, which turn it is, and the task itself. */
import { z } from 'zod';

/**
 * The task in the A2A SDK's own JSON form (`Task.toJSON`), read back with `Task.fromJSON`. Only what Vigil itself
 * relies on is checked; the rest (history, artifacts) is the SDK's to shape.
 */
export const A2aTaskJsonSchema = z
  .object({
    id: z.string().min(1),
    contextId: z.string(),
    status: z.object({ state: z.string() }).passthrough().optional(),
  })
  .passthrough();
export type A2aTaskJson = z.infer<typeof A2aTaskJsonSchema>;

/** One stored A2A task. */
export const A2aTaskRecordSchema = z.object({
  /** The id of the gateway token that created it: only that token reads it (`tasks/get`) or cancels it. */
  owner: z.string().min(1),
  /** The turn the task's message became. */
  turnId: z.string().min(1),
  /** The seq of that message in the conversation: the turn's ending is looked for after it. */
  seq: z.number().int().min(0),
  task: A2aTaskJsonSchema,
});
export type A2aTaskRecord = z.infer<typeof A2aTaskRecordSchema>;
