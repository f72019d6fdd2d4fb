/**
 * The part of webhooks that delivers: the outbox, its retry thread and the signing they need (standardwebhooks).
 * Loaded only when a data dir has endpoints (at boot, the store's read tells) or at the first `webhooks.add`: a daemon
 * that posts nowhere never reads it (docs/performance.md, "Start-up").
 */
import type { DestinationPolicy } from './webhook-destination.js';
import { WebhookOutbox } from './webhook-outbox.js';
import type { WebhookOutboxOptions } from './webhook-outbox-options.js';
import { guardedWebhookPost, type WebhookPost } from './webhook-post.js';
import { WebhookPostThread } from './webhook-post-thread.js';

import { newWebhookSecret } from './webhook-signing.js';

export { newWebhookSecret };

/** The outbox and the thread that sends its cold retries (none when the options put a POST of their own in place). */
export interface WebhookDelivery {
  outbox: WebhookOutbox;
  thread: WebhookPostThread | undefined;
}

/** The outbox's options but its POSTs, which `createWebhookDelivery` makes unless `post` replaces them. */
export type DeliveryOptions = Omit<WebhookOutboxOptions, 'post' | 'retryPost'> & { post?: WebhookPost | undefined };

/** Builds the outbox, posting where `policy` allows (or by `options.post`: tests and the simulator). */
export function createWebhookDelivery(options: DeliveryOptions, policy: DestinationPolicy): WebhookDelivery {
  const { post, ...rest } = options;
  const thread = post === undefined ? new WebhookPostThread(policy) : undefined;
  const outbox = new WebhookOutbox({
    ...rest,
    // An ok endpoint's events go out on the heartbeat's thread, one after another on a warm connection (a thread hop
    // each would halve a healthy endpoint's throughput); a failing endpoint's cold retries go out on the thread.
    post: post ?? guardedWebhookPost(policy),
    ...(thread === undefined ? {} : { retryPost: thread.post }),
  });
  return { outbox, thread };
}

/** This module, as a dynamic import gives it: the boot passes it in when the data dir already has endpoints. */
export interface WebhookDeliveryModule {
  createWebhookDelivery: typeof createWebhookDelivery;
  newWebhookSecret: typeof newWebhookSecret;
}
