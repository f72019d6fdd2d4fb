/**
 * The messages between the outbox's side (`WebhookPostThread`) and the delivery thread (`webhook-post-worker.ts`).
 * Plain types, not zod schemas: both ends are this package's code in one process, and nothing else can write to the
 * port, so a parse at every attempt would check only what the compiler already has.
 */

/**
 * To the thread: sign and send one attempt (`id` names it in the reply), or abort the attempt `id` (its timeout
 * passed).
 */
export type ThreadRequest =
  | {
      type: 'post';
      id: number;
      url: string;
      body: string;
      webhookId: string;
      atMs: number;
      secret: string;
      /** The destination policy to connect under (`guardedWebhookPost`); absent: none. */
      guard?: ThreadGuard;
    }
  | { type: 'abort'; id: number };

/** From the thread: attempt `id` had an HTTP answer (`status`), or none (`error`, as `describePostError` says it). */
export type ThreadReply = { id: number; status: number } | { id: number; error: string };

/** A destination policy as the thread receives it: plain data (the default resolver is the thread's own). */
export interface ThreadGuard {
  allowPrivate: boolean;
  ownAddresses: string[];
}
