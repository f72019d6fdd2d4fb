/**
 * The retry thread's entry: it signs each attempt the outbox hands over, sends it with `httpWebhookPost` and answers
 * with its status or the reason it failed. On this thread go the signing, the connection, the TLS handshake, the
 * request and the error a refused or aborted attempt raises, so none of them costs the heartbeat's thread
 * (`WebhookPostThread`).
 */
import { parentPort } from 'node:worker_threads';
import { describePostError, guardedWebhookPost, httpWebhookPost } from './webhook-post.js';
import { signedRequest, WebhookSigner } from './webhook-signing.js';
import type { ThreadReply, ThreadRequest } from './webhook-thread-messages.js';

if (parentPort === null) throw new Error('webhook-post-worker.js runs as a worker thread (see WebhookPostThread)');
const port = parentPort;
const inflight = new Map<number, AbortController>();
// Each secret decoded once (an endpoint is retried many times); a removed endpoint's stays until the thread is closed.
const signers = new Map<string, WebhookSigner>();

const reply = (message: ThreadReply): void => port.postMessage(message);

port.on('message', (message: ThreadRequest) => {
  if (message.type === 'abort') {
    inflight.get(message.id)?.abort();
    return;
  }
  const { id, secret } = message;
  const controller = new AbortController();
  inflight.set(id, controller);
  let signer = signers.get(secret);
  if (signer === undefined) {
    signer = new WebhookSigner(secret);
    signers.set(secret, signer);
  }
  const { guard } = message;
  const post =
    guard === undefined
      ? httpWebhookPost
      : guardedWebhookPost({ allowPrivate: guard.allowPrivate, ownAddresses: () => guard.ownAddresses });
  post(signedRequest({ ...message, signal: controller.signal }, signer))
    .then(
      (response) => reply({ id, status: response.status }),
      (err: unknown) => reply({ id, error: describePostError(err) }),
    )
    .finally(() => inflight.delete(id));
});
