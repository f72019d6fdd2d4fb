/**
 * What the channel core stores (sealed with the rest of the store): the inbox's record of each admitted message, the
 * outbox's record of each reply with its messages, approved senders, pending pairings, and the platform cursor.
 */
import { z } from 'zod';

/** An admitted message, under (channel, chat, message id): a redelivery finds its turn instead of making one. */
export const InboxRecordSchema = z.object({
  turnId: z.string(),
  senderId: z.string(),
  /** Epoch ms the message was admitted. */
  at: z.number().int().nonnegative(),
});
export type InboxRecord = z.infer<typeof InboxRecordSchema>;

/**
 * One message of a reply in its chat. `pending`: not sent yet; `placing`: a placeholder's send is in flight (after a
 * crash its outcome is unknown); `placed`: the placeholder (or an older text) is in the chat under `messageId`;
 * `written`: it shows `text`. `text` undefined: nothing to show yet (the agent is still thinking).
 */
export const ReplySlotSchema = z.object({
  status: z.enum(['pending', 'placing', 'placed', 'written']),
  messageId: z.string().optional(),
  text: z.string().optional(),
  /** Sent as a reply to the message being answered (the first message of a reply, and of an ack). */
  replyTo: z.boolean(),
});
export type ReplySlot = z.infer<typeof ReplySlotSchema>;

/**
 * A reply's life in its chat, one record per admitted turn. `awaiting`: the turn is open (its first message may already
 * be a placeholder); `delivering`: the answer is known and its messages are being written; `sent` / `failed`: over.
 */
export const ReplyRecordSchema = z.object({
  turnId: z.string(),
  chatId: z.string(),
  /** The platform id of the message answered. */
  replyTo: z.string(),
  /** The conversation seq of that message: the turn's ending is looked up after it. */
  userSeq: z.number().int().nonnegative(),
  state: z.enum(['awaiting', 'delivering', 'sent', 'failed']),
  slots: z.array(ReplySlotSchema),
  /** Placeholders whose send a crash (or a lost answer) left unknown: each may be one stray placeholder in the chat. */
  strays: z.number().int().nonnegative(),
  /** True once an ack (asleep over the budget) was given: the answer then comes as a message of its own. */
  acked: z.boolean(),
  error: z.string().optional(),
  /** Epoch ms admitted, and last changed. */
  at: z.number().int().nonnegative(),
  updatedAt: z.number().int().nonnegative(),
});
export type ReplyRecord = z.infer<typeof ReplyRecordSchema>;

/** A sender allowed by an operator's `channels.approve`. */
export const ApprovedSenderSchema = z.object({
  name: z.string().optional(),
  since: z.number().int().nonnegative(),
});
export type ApprovedSender = z.infer<typeof ApprovedSenderSchema>;

/** A stranger's pairing: the code they were given (valid one hour), and when they were last answered or reported. */
export const PairingRecordSchema = z.object({
  code: z.string(),
  name: z.string().optional(),
  chatId: z.string(),
  expiresAt: z.number().int().nonnegative(),
  /** The last pairing reply sent (at most one an hour). */
  repliedAt: z.number().int().nonnegative(),
});
export type PairingRecord = z.infer<typeof PairingRecordSchema>;

/** When a refused sender was last reported (`channel.refused` at most once an hour per sender). */
export const RefusalRecordSchema = z.object({ at: z.number().int().nonnegative() });
export type RefusalRecord = z.infer<typeof RefusalRecordSchema>;

/** Where the platform's update stream stands: every update before it is durable here (Telegram: the next offset). */
export const CursorRecordSchema = z.object({ cursor: z.string() });
export type CursorRecord = z.infer<typeof CursorRecordSchema>;
