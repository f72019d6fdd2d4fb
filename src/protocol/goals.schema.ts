/** Goals on the wire: the goal view and the `goals.*` params. */
import { z } from 'zod';
import { GoalPrioritySchema, GoalStatusSchema } from '../actors/goals/goals.schema.js';
import { isoTime } from './iso-time.js';

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

/** `goals.complete` params. */
export const GoalIdParamsSchema = z.object({ id: z.string().min(1).max(200) });
export type GoalIdParams = z.infer<typeof GoalIdParamsSchema>;
