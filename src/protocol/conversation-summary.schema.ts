/** The rolling summary of the conversation as stored (and carried by checkpoint exports): its text and its watermark. */
import { z } from 'zod';

/** One version of the summary: it covers every conversation entry up to `throughSeq`. */
export const ConversationSummarySchema = z.object({
  text: z.string(),
  /** The last conversation seq folded in (the summary's watermark). */
  throughSeq: z.number().int().nonnegative(),
  /** Epoch ms it was written. */
  updatedAt: z.number(),
  /** Who wrote it: a model id, or `extractive` for the offline summary. */
  model: z.string(),
});
export type ConversationSummary = z.infer<typeof ConversationSummarySchema>;
