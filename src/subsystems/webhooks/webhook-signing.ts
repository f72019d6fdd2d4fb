/**
 * What goes on the wire for one event under the Standard Webhooks specification: the body (the event as the feed
 * carries it), its `webhook-id`, and the signed headers, signed by the `standardwebhooks` package rather than by hand.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { VigilEvent } from '../../protocol/events.schema.js';
import type { UnsignedWebhookRequest, WebhookRequest } from './webhook-post.js';

/** A new signing secret: `whsec_` and base64 of 32 random bytes (the specification asks for 24 to 64). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The body of an event's POST: the same JSON text the WebSocket and SSE feeds send for it. */
export function webhookBody(event: VigilEvent): string {
  return JSON.stringify(event);
}

/**
 * The event's `webhook-id`: its seq and a digest of its body. The same for every attempt of one event (the journaled
 * event never changes), and different for two events even when a data dir restored from a backup issues a seq again:
 * a receiver that deduplicates by id never drops an event it has not seen.
 */
export function webhookMessageId(seq: number, body: string): string {
  return `evt_${seq}_${createHash('sha256').update(body).digest('hex').slice(0, 16)}`;
}

/** The three Standard Webhooks headers and the content type of one attempt. */
export type SignedHeaders = Readonly<
  Record<'content-type' | 'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>
>;

/** Signs attempts for one endpoint (its secret decoded once). */
export class WebhookSigner {
  private readonly webhook: Webhook;

  constructor(secret: string) {
    this.webhook = new Webhook(secret);
  }

  /** The headers of an attempt at `nowMs` (the timestamp is whole seconds, as the specification says). */
  headers(messageId: string, nowMs: number, body: string): SignedHeaders {
    const timestamp = new Date(Math.floor(nowMs / 1000) * 1000);
    return {
      'content-type': 'application/json',
      'webhook-id': messageId,
      'webhook-timestamp': String(Math.floor(nowMs / 1000)),
      'webhook-signature': this.webhook.sign(messageId, timestamp, body),
    };
  }
}

/** `request` signed (by `signer`, or one made for its secret): the request `WebhookPost` sends. */
export function signedRequest(request: UnsignedWebhookRequest, signer?: WebhookSigner): WebhookRequest {
  const { url, body, signal } = request;
  const headers = (signer ?? new WebhookSigner(request.secret)).headers(request.webhookId, request.atMs, body);
  return { url, body, signal, headers };
}
