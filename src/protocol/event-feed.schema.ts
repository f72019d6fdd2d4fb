/** The event feed's wire shapes: subscribe/unsubscribe/history params and the two notifications a subscriber receives. */
import { z } from 'zod';
import { VigilEventSchema } from './events.schema.js';
import { LiveEventSchema } from './live-events.schema.js';

/** Type filters: exact event types or prefixes ending in `*` (`"checkpoint.*"`). */
export const TypeFiltersSchema = z.array(z.string().min(1).max(200)).max(100);

/** An event seq (the feed resumes strictly after it). */
export const SeqSchema = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/** `events.subscribe` params: `after` replays from the journal, then the feed goes live without a gap or a repeat. */
export const SubscribeParamsSchema = z.object({ types: TypeFiltersSchema.optional(), after: SeqSchema.optional() });
export type SubscribeParams = z.infer<typeof SubscribeParamsSchema>;

/**
 * `events.subscribe` result: the subscription's id, and the seq its feed continues after (the `after` given, or the
 * newest seq emitted before it began), so a client that reconnects before seeing any event still resumes without a gap.
 */
export const SubscribeResultSchema = z.object({ subscription: z.string(), after: SeqSchema });
export type SubscribeResult = z.infer<typeof SubscribeResultSchema>;

/** `events.unsubscribe` params. */
export const UnsubscribeParamsSchema = z.object({ subscription: z.string().min(1).max(200) });
export type UnsubscribeParams = z.infer<typeof UnsubscribeParamsSchema>;

/** `events.history` params (CONTRACT §4): with `after`, the first `limit` after it; without, the newest `limit`. */
export const HistoryParamsSchema = z.object({
  types: TypeFiltersSchema.optional(),
  after: SeqSchema.optional(),
  limit: z.number().int().min(1).max(1000).optional(),
});
export type HistoryParams = z.infer<typeof HistoryParamsSchema>;

/**
 * `events.event` notification params: one event for one subscription; or a live-only event (no seq) the
 * subscription named exactly (live-events.schema.ts).
 */
export const EventNotificationSchema = z.object({
  subscription: z.string(),
  event: z.union([VigilEventSchema, LiveEventSchema]),
});
export type EventNotification = z.infer<typeof EventNotificationSchema>;

/**
 * `events.dropped` notification params: the subscriber fell behind by more than its buffer, so `count` events with
 * seqs from `firstSeq` to `lastSeq` were not sent; `events.history {after: firstSeq - 1}` fetches them.
 */
export const DroppedNotificationSchema = z.object({
  subscription: z.string(),
  count: z.number().int().positive(),
  firstSeq: SeqSchema,
  lastSeq: SeqSchema,
});
export type DroppedNotification = z.infer<typeof DroppedNotificationSchema>;
