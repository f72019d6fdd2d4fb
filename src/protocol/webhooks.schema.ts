/**
 * Webhook endpoints as records (CONTRACT §16): the stored endpoint with its delivery state and cursor, one stored
 * delivery attempt, and the `webhooks.*` params and results.
 */
import { z } from 'zod';
import { TypeFiltersSchema, SeqSchema } from './event-feed.schema.js';
import { isoTime } from './iso-time.js';

/** An endpoint's id: `wh_` and 16 hex digits (keys in the store hold ids, never user text). */
export const WebhookIdSchema = z.string().regex(/^wh_[0-9a-f]{16}$/, { error: 'expected a webhook id such as wh_…' });

/** A signing secret as the Standard Webhooks specification writes it: `whsec_` and base64 of 24 to 64 random bytes. */
export const WebhookSecretSchema = z.string().regex(/^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/);

/** Where events go: an absolute http(s) URL, at most 2,000 characters. */
export const WebhookUrlSchema = z
  .string()
  .max(2000)
  .refine(
    (value) => {
      if (!URL.canParse(value)) return false;
      const protocol = new URL(value).protocol;
      return protocol === 'http:' || protocol === 'https:';
    },
    { error: 'expected an absolute http:// or https:// URL' },
  );

/** What the endpoint is called in `webhooks.list` (default: its host). */
export const WebhookNameSchema = z.string().min(1).max(100);

/** The three states an operator sees (`webhooks.list`). */
export const WebhookStateNameSchema = z.enum(['ok', 'failing', 'disabled']);
export type WebhookStateName = z.infer<typeof WebhookStateNameSchema>;

/**
 * An endpoint's delivery state, the discriminated union the transition (`webhook-endpoint.machine.ts`) works on:
 * ok; failing after `failures` failed attempts in a row (the backoff's exponent), the first at `since` (epoch ms);
 * disabled at event `seq` for `error` until `webhooks.enable`.
 */
export const WebhookHealthSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('ok') }),
  z.object({
    state: z.literal('failing'),
    failures: z.number().int().positive(),
    since: z.number().int().nonnegative(),
    error: z.string(),
  }),
  z.object({ state: z.literal('disabled'), seq: SeqSchema, error: z.string() }),
]);
export type WebhookHealth = z.infer<typeof WebhookHealthSchema>;

/**
 * An endpoint as stored (sealed under VIGIL_CHECKPOINT_KEY with the rest of the store). `deliveredSeq` is the cursor:
 * every event of its types up to it had a 2xx (or was covered by `webhook.gap`). Times in epoch ms: `windowFrom` is
 * when the retry window of the oldest undelivered event began (its time, but never before `windowFloorAt`: the
 * creation, the last enable or redeliver), `nextAttemptAt` when a failing endpoint is tried again.
 */
export const WebhookRecordSchema = z.object({
  id: WebhookIdSchema,
  name: WebhookNameSchema,
  url: WebhookUrlSchema,
  types: TypeFiltersSchema.min(1),
  secret: WebhookSecretSchema,
  createdAt: z.number().int().nonnegative(),
  windowFloorAt: z.number().int().nonnegative(),
  deliveredSeq: SeqSchema,
  health: WebhookHealthSchema,
  windowFrom: z.number().int().nonnegative().optional(),
  nextAttemptAt: z.number().int().nonnegative().optional(),
  lastAttemptAt: z.number().int().nonnegative().optional(),
  lastStatus: z.number().int().optional(),
});
export type WebhookRecord = z.infer<typeof WebhookRecordSchema>;

/**
 * One delivery attempt as stored and as `webhooks.deliveries` shows it: the event's seq, its `webhook-id`, the attempt
 * number for that event (1 for the first), when, the HTTP status if one came back, the error otherwise (or a non-2xx
 * described), and how long it took.
 */
export const WebhookAttemptSchema = z.object({
  seq: SeqSchema,
  webhookId: z.string(),
  attempt: z.number().int().positive(),
  at: isoTime,
  status: z.number().int().optional(),
  error: z.string().optional(),
  ms: z.number().nonnegative(),
});
export type WebhookAttempt = z.infer<typeof WebhookAttemptSchema>;

/** `webhooks.add` params. */
export const AddWebhookParamsSchema = z.object({
  url: WebhookUrlSchema.describe(
    'Where to POST each event: an http:// or https:// URL; loopback, link-local and private addresses (and names resolving to them) only with VIGIL_WEBHOOK_ALLOW_PRIVATE=true, the gateway itself never.',
  ),
  types: TypeFiltersSchema.min(1).describe(
    'Which events, as events.subscribe takes them: exact types or prefixes ending in * (e.g. ["agent.reply", "tool.*"]).',
  ),
  name: WebhookNameSchema.optional().describe('A name to show in webhooks.list (default: the URL host).'),
});
export type AddWebhookParams = z.infer<typeof AddWebhookParamsSchema>;

/** `webhooks.add` result: the signing secret, shown this once and never again. */
export const AddedWebhookSchema = z.object({
  id: WebhookIdSchema,
  name: z.string(),
  url: z.string(),
  types: z.array(z.string()),
  secret: z.string(),
  state: WebhookStateNameSchema,
  createdAt: isoTime,
});
export type AddedWebhook = z.infer<typeof AddedWebhookSchema>;

/** One endpoint as `webhooks.list` shows it: never the secret. `backlog`: events of its types after the cursor. */
export const WebhookViewSchema = z.object({
  id: WebhookIdSchema,
  name: z.string(),
  url: z.string(),
  types: z.array(z.string()),
  state: WebhookStateNameSchema,
  deliveredSeq: SeqSchema,
  backlog: z.number().int().nonnegative(),
  lastAttemptAt: isoTime.nullable(),
  lastStatus: z.number().int().nullable(),
  /**
   * Why the endpoint is failing or disabled, as a reason class (`refused`, `timeout`, `dns`, `http_5xx`, …: those of
   * `webhook.failing`), so an attempt that got no HTTP status still says why; null while it is ok.
   */
  lastReason: z.string().nullable(),
});
export type WebhookView = z.infer<typeof WebhookViewSchema>;

/** `webhooks.remove`, `webhooks.enable`, `webhooks.test` params. */
export const WebhookIdParamsSchema = z.object({ id: z.string().min(1).max(100).describe('The endpoint id (wh_…).') });
export type WebhookIdParams = z.infer<typeof WebhookIdParamsSchema>;

/** `webhooks.deliveries` params. */
export const WebhookDeliveriesParamsSchema = z.object({
  id: z.string().min(1).max(100).describe('The endpoint id (wh_…).'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe('At most this many attempts, newest first (default 50).'),
});
export type WebhookDeliveriesParams = z.infer<typeof WebhookDeliveriesParamsSchema>;

/** `webhooks.redeliver` params. */
export const WebhookRedeliverParamsSchema = z.object({
  id: z.string().min(1).max(100).describe('The endpoint id (wh_…).'),
  afterSeq: SeqSchema.describe('Events of its types after this seq go out again, in order.'),
});
export type WebhookRedeliverParams = z.infer<typeof WebhookRedeliverParamsSchema>;
