/** What the webhook outbox is built from and reports to: every part injected, so a test or the simulator drives it. */
import type { EventPayload, VigilEvent } from '../../protocol/events.schema.js';
import type { Clock } from '../../shared/clock.js';
import type { VigilLogger } from '../../shared/logger.js';
import type { BackoffSettings } from './webhook-backoff.js';
import type { UnsignedWebhookPost, WebhookPost } from './webhook-post.js';
import type { WebhookStoreLike } from './webhook-store.js';

/** Where the outbox reads events: the journal, forward from a seq. */
export interface WebhookEventSource {
  /** Events after seq `after` whose type `types` match (as `events.history` filters), oldest first, at most `limit`. */
  read(after: number, types: readonly string[], limit: number): Promise<VigilEvent[]>;
}

/** Where the outbox reports `webhook.*` events (the bus). */
export interface WebhookNotifier {
  emit<T extends 'webhook.failing' | 'webhook.disabled' | 'webhook.recovered' | 'webhook.gap'>(
    type: T,
    payload: EventPayload<T>,
  ): unknown;
}

/** How an attempt ended, for the deliveries counter. */
export type WebhookOutcome = 'delivered' | 'failed' | 'timeout';

/** Where the outbox reports its metrics (VigilMetrics implements it); never the URL or the secret, only the id. */
export interface WebhookMetricsSink {
  webhookAttempt(endpointId: string, outcome: WebhookOutcome, seconds: number): void;
  webhookBacklog(endpointId: string, events: number): void;
  webhookRemoved(endpointId: string): void;
}

/** The outbox's settings (from the configuration; the backoff only tests and the simulator change). */
export interface WebhookOutboxSettings {
  /** VIGIL_WEBHOOK_TIMEOUT_MS: an attempt with no answer by then is aborted and failed. */
  timeoutMs: number;
  /** VIGIL_WEBHOOK_RETRY_HOURS in ms. */
  retryWindowMs: number;
  /** Default: about 1 s doubling to one hour (`webhook-backoff.ts`). */
  backoff?: BackoffSettings;
  /** How many events a lane reads from the journal at once (default 100). */
  pageSize?: number;
}

/** What the outbox is built from; every part is injected, so a test or the simulator drives it on its own clock. */
export interface WebhookOutboxOptions {
  store: WebhookStoreLike;
  events: WebhookEventSource;
  /** The POST to an endpoint that is ok: the next event on a warm, kept-alive connection. */
  post: WebhookPost;
  /**
   * The POST of a retry at a failing endpoint, and of `webhooks.test` (default: signed here and sent by `post`): the
   * attempts that run cold (a new connection, often refused, reset or timed out), which the daemon signs and sends
   * from a thread of its own.
   */
  retryPost?: UnsignedWebhookPost;
  clock: Clock;
  notifier: WebhookNotifier;
  settings: WebhookOutboxSettings;
  /** The jitter's source (default Math.random). */
  random?: () => number;
  metrics?: WebhookMetricsSink;
  log?: VigilLogger;
  /** The beat number a `webhook.test` event carries (default 0). */
  beat?: () => number;
}
