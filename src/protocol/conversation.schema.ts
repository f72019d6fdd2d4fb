/** The conversation log's records: one message per entry, and the archives that hold entries moved aside by a restore. */
import { z } from 'zod';
import { isoTime } from './iso-time.js';
import { TokenScopeSchema } from './token-scopes.js';

/** How a turn may end without an answer (CONTRACT §7). */
export const TurnEndingCodeSchema = z.enum([
  /** The API refused the request for good (400 prompt too long, 404 unknown model, 413, 422). */
  'THINK_REJECTED',
  /** The prompt could not fit VIGIL_CONTEXT_TOKENS even by the plain estimate: refused before any API call. */
  'CONTEXT_TOO_SMALL',
  /** The model ended several thinks without answering this turn. */
  'NO_ANSWER',
  /** The think carrying it ran past the stuck-turn limit. */
  'TURN_STUCK',
  /** A restore went back to before the message, or the operator cancelled it. */
  'TURN_CANCELLED',
]);
export type TurnEndingCode = z.infer<typeof TurnEndingCodeSchema>;

/** The code and reason of an unanswered turn. */
export const TurnEndingSchema = z.object({ code: TurnEndingCodeSchema, reason: z.string() });
export type TurnEnding = z.infer<typeof TurnEndingSchema>;

/** One message of the conversation. `seq` is the log's own counter, never reused, even after an archive. */
export const ConversationMessageSchema = z.object({
  seq: z.number().int().min(1),
  turnId: z.string(),
  role: z.enum(['user', 'assistant']),
  text: z.string(),
  /** Who sent a user message (a client or channel name). */
  from: z.string().optional(),
  /**
   * The scope a user message was sent with (its token's, or a schedule's: see `schedule-firing.ts`): what the offline
   * thinker's commands may do for it. Absent in messages logged before scopes were recorded: those act as `operate`.
   */
  scope: TokenScopeSchema.optional(),
  /** An agent entry that ends its turn without an answer: why (the text says it in words). */
  unanswered: TurnEndingSchema.optional(),
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
  /** The scope it was sent with (see ConversationMessageSchema); absent in checkpoints from before: `operate`. */
  scope: TokenScopeSchema.optional(),
  /** Epoch ms. */
  at: z.number(),
  /** Thinks that carried this message and ended without answering it (NO_ANSWER after a few). */
  attempts: z.number().int().nonnegative().optional(),
  /** Its think started a sub-agent task instead of answering: the answer comes with the task's result. */
  awaitingTask: z.boolean().optional(),
});
export type PendingMessage = z.infer<typeof PendingMessageSchema>;

/** `conversation.list` params: the newest `limit` entries before `before` (a seq), so paging goes backwards. */
export const ConversationListParamsSchema = z.object({
  before: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  limit: z.number().int().min(1).max(1000).optional(),
});
export type ConversationListParams = z.infer<typeof ConversationListParamsSchema>;

/** One `conversation.list` entry (CONTRACT §7): what was said, by whom, when; newest last. */
export const ConversationEntrySchema = z.object({
  seq: z.number().int().min(1),
  turnId: z.string().optional(),
  role: z.enum(['user', 'agent']),
  from: z.string().optional(),
  text: z.string(),
  at: z.string().datetime({ offset: true }),
  /** Present on the agent entry that ended a turn without an answer. */
  unanswered: TurnEndingSchema.optional(),
});
export type ConversationEntry = z.infer<typeof ConversationEntrySchema>;

/** Most hits `conversation.search` answers with. */
export const MAX_CONVERSATION_SEARCH_LIMIT = 100;

/** `conversation.search` params (CONTRACT §17): words to look for, and the time window (ISO times, both exclusive). */
export const ConversationSearchParamsSchema = z.object({
  query: z.string().trim().min(1).max(1000),
  /** Hits wanted, best first (default 10). */
  limit: z.number().int().min(1).max(MAX_CONVERSATION_SEARCH_LIMIT).optional(),
  /** Only messages said before this time. */
  before: isoTime.optional(),
  /** Only messages said after this time. */
  after: isoTime.optional(),
});
export type ConversationSearchParams = z.infer<typeof ConversationSearchParamsSchema>;

/** One `conversation.search` hit: a message of the log, with its relevance. */
export const ConversationSearchHitSchema = z.object({
  seq: z.number().int().min(1),
  role: z.enum(['user', 'agent']),
  from: z.string().optional(),
  text: z.string(),
  at: isoTime,
  /** BM25 relevance (stemmed words; prefix and fuzzy matches weighted down); higher is better within one search. */
  score: z.number(),
});
export type ConversationSearchHit = z.infer<typeof ConversationSearchHitSchema>;
