/** The conversation log's records: one message per entry, and the archives that hold entries moved aside by a restore. */
import { z } from 'zod';

/** One message of the conversation. `seq` is the log's own counter, never reused, even after an archive. */
export const ConversationMessageSchema = z.object({
  seq: z.number().int().min(1),
  turnId: z.string(),
  role: z.enum(['user', 'assistant']),
  text: z.string(),
  /** Who sent a user message (a client or channel name). */
  from: z.string().optional(),
  /** Epoch ms. */
  at: z.number(),
});
export type ConversationMessage = z.infer<typeof ConversationMessageSchema>;

/** What `append` takes: a message before the log numbers it. */
export const NewConversationMessageSchema = ConversationMessageSchema.omit({ seq: true });
export type NewConversationMessage = z.infer<typeof NewConversationMessageSchema>;

/** An archive's summary: the entries after `afterSeq` that `archiveAfter` moved under `archiveId`. */
export const ConversationArchiveSchema = z.object({
  archiveId: z.string().min(1),
  /** The watermark the archive was cut at. */
  afterSeq: z.number().int().nonnegative(),
  count: z.number().int().nonnegative(),
  firstSeq: z.number().int().min(1),
  lastSeq: z.number().int().min(1),
});
export type ConversationArchive = z.infer<typeof ConversationArchiveSchema>;

/** A user message waiting for an answer. */
export const PendingMessageSchema = z.object({
  turnId: z.string(),
  text: z.string(),
  from: z.string(),
  /** Epoch ms. */
  at: z.number(),
});
export type PendingMessage = z.infer<typeof PendingMessageSchema>;
