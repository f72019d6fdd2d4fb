/** Working memory: a few salient items, salience-gated admission and time decay; its state and events. */
import { z } from 'zod';

/** One item held in working memory. */
export const MemoryItemSchema = z.object({
  id: z.string().min(1),
  content: z.string(),
  salience: z.number().min(0).max(1),
  /** Epoch ms. */
  createdAt: z.number(),
  /** Epoch ms of the last attention (or admission). */
  lastAttendedAt: z.number(),
});
export type MemoryItem = z.infer<typeof MemoryItemSchema>;

/** The working-memory actor's whole state: what a checkpoint stores. */
export const WorkingMemoryStateSchema = z.object({
  capacity: z.number().int().positive(),
  items: z.array(MemoryItemSchema),
  /** Epoch ms of the last decay; the next decay covers the time since. */
  updatedAt: z.number(),
});
export type WorkingMemoryState = z.infer<typeof WorkingMemoryStateSchema>;

/** Events the working-memory actor accepts; ids and time arrive on the event. */
export const WorkingMemoryEventSchema = z.discriminatedUnion('type', [
  /** Offer an item; it is admitted if there is room or it is more salient than the least salient item. */
  z.object({
    type: z.literal('memory.admit'),
    at: z.number(),
    item: z.object({ id: z.string().min(1), content: z.string(), salience: z.number().min(0).max(1) }),
  }),
  /** Attention refreshes an item's salience by `boost` (default 0.2). */
  z.object({
    type: z.literal('memory.attend'),
    at: z.number(),
    id: z.string(),
    boost: z.number().min(0).max(1).optional(),
  }),
  /** Decay every item's salience by the time elapsed since `updatedAt` (about 0.02 a minute). */
  z.object({ type: z.literal('memory.decay'), at: z.number() }),
  z.object({ type: z.literal('memory.remove'), at: z.number(), id: z.string() }),
]);
export type WorkingMemoryEvent = z.infer<typeof WorkingMemoryEventSchema>;
