/** The agent's mind and mouth on the wire: `agent.send`, working memory, affect. */
import { z } from 'zod';
import { isoTime } from './iso-time.js';

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
