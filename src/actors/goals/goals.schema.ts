/** Goals: what the agent is working toward, with priority, progress and due time; its state and events. */
import { z } from 'zod';

export const GoalStatusSchema = z.enum(['active', 'completed', 'abandoned']);
export type GoalStatus = z.infer<typeof GoalStatusSchema>;

/** Priority from 1 (lowest) to 10 (highest); 5 when not given. */
export const GoalPrioritySchema = z.number().int().min(1).max(10);
export const DEFAULT_GOAL_PRIORITY = 5;

/** One goal. Times are epoch ms. */
export const GoalSchema = z.object({
  id: z.string().min(1),
  title: z.string().min(1),
  priority: GoalPrioritySchema,
  progress: z.number().min(0).max(1),
  status: GoalStatusSchema,
  dueAt: z.number().optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type Goal = z.infer<typeof GoalSchema>;

/** The goals actor's whole state: what a checkpoint stores. Goals are kept in insertion order. */
export const GoalsStateSchema = z.object({
  goals: z.array(GoalSchema),
});
export type GoalsState = z.infer<typeof GoalsStateSchema>;

/** Events the goals actor accepts; an event naming an unknown id changes nothing. */
export const GoalsEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('goal.add'),
    at: z.number(),
    goal: z.object({
      id: z.string().min(1),
      title: z.string().min(1),
      priority: GoalPrioritySchema.optional(),
      dueAt: z.number().optional(),
    }),
  }),
  /** Add `delta` to progress (clamped to 0..1); reaching 1 completes the goal. */
  z.object({ type: z.literal('goal.progress'), at: z.number(), id: z.string(), delta: z.number() }),
  z.object({ type: z.literal('goal.complete'), at: z.number(), id: z.string() }),
  z.object({ type: z.literal('goal.abandon'), at: z.number(), id: z.string() }),
]);
export type GoalsEvent = z.infer<typeof GoalsEventSchema>;
