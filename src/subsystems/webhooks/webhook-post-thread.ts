/**
 * The POST the daemon uses for the attempts that run cold: the retries at a failing endpoint, and `webhooks.test`.
 * It is the signing and `httpWebhookPost`, run on a worker thread of its own. Such an attempt is rare (one per backoff
 * step), so its code runs unoptimised, and on the heartbeat's thread its signature (the `standardwebhooks` package's
 * SHA-256 is JavaScript), its new connection (a TLS handshake for https), the request and the error a refused, reset
 * or aborted attempt raises cost about a millisecond and a half each time; here that thread only posts a message and
 * reads the answer (bench 17). The thread starts at the first such attempt, so a daemon whose endpoints
 * all answer never starts it, and keeps the process alive only while an attempt is in flight.
 */
import { Worker } from 'node:worker_threads';
import type { DestinationPolicy } from './webhook-destination.js';
import type { UnsignedWebhookPost, WebhookResponse } from './webhook-post.js';
import type { ThreadReply, ThreadRequest } from './webhook-thread-messages.js';

/** An attempt that had no HTTP answer, as the thread described it (`connect ECONNREFUSED 127.0.0.1:9`). */
export class WebhookPostFailure extends Error {
  override readonly name = 'WebhookPostFailure';
}

/** An attempt waiting for the thread's answer. */
interface Waiting {
  resolve: (response: WebhookResponse) => void;
  reject: (err: unknown) => void;
  /** Detaches the attempt's abort listener. */
  detach: () => void;
}

/**
 * Where the thread's code is. Compiled (dist/, or the start-up bundle, whose build emits it as an entry of its own),
 * it is the `.js` file beside this module; run from the TypeScript sources (the tests and benches), the `.ts` one,
 * under tsx as they are.
 */
function workerEntry(): { url: URL; execArgv: string[] | undefined } {
  const fromSources = import.meta.url.endsWith('.ts');
  return fromSources
    ? { url: new URL('./webhook-post-worker.ts', import.meta.url), execArgv: ['--import', 'tsx'] }
    : { url: new URL('./webhook-post-worker.js', import.meta.url), execArgv: undefined };
}

/** The delivery thread: started at the first attempt, and again after it stopped (a fault, or `close`). */
export class WebhookPostThread {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;

  /** `policy`: the destinations the thread connects to are checked under it (`guardedWebhookPost`); none: unchecked. */
  constructor(private readonly policy?: Pick<DestinationPolicy, 'allowPrivate' | 'ownAddresses'>) {}

  /**
   * One attempt, signed and sent on the thread: as `httpWebhookPost` after `signedRequest`, and an aborted signal
   * rejects at once with its reason.
   */
  readonly post: UnsignedWebhookPost = (request) =>
    new Promise<WebhookResponse>((resolve, reject) => {
      const { signal } = request;
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const worker = this.started();
      const id = this.nextId;
      this.nextId += 1;
      const onAbort = (): void => {
        // The answer is not awaited: the outbox has timed the attempt out, and the thread drops its connection.
        this.settle(id);
        worker.postMessage({ type: 'abort', id } satisfies ThreadRequest);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(id, { resolve, reject, detach: () => signal.removeEventListener('abort', onAbort) });
      if (this.waiting.size === 1) worker.ref();
      const { url, body, webhookId, atMs, secret } = request;
      const policy = this.policy;
      const guard =
        policy === undefined
          ? {}
          : { guard: { allowPrivate: policy.allowPrivate, ownAddresses: [...policy.ownAddresses()] } };
      worker.postMessage({ type: 'post', id, url, body, webhookId, atMs, secret, ...guard } satisfies ThreadRequest);
    });

  /** How many attempts are waiting for an answer (for tests). */
  get inFlight(): number {
    return this.waiting.size;
  }

  /** Stops the thread; attempts still in flight reject (the outbox aborted its own before). */
  async close(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    await worker.terminate();
  }

  private started(): Worker {
    if (this.worker !== undefined) return this.worker;
    const entry = workerEntry();
    const worker = new Worker(entry.url, {
      name: 'vigil-webhooks',
      ...(entry.execArgv === undefined ? {} : { execArgv: entry.execArgv }),
    });
    // Idle, the thread holds nothing open: a daemon (or an embedding program) exits as if it had none.
    worker.unref();
    worker.on('message', (reply: ThreadReply) => this.answered(reply));
    worker.on('error', (err) => this.stopped(worker, `the webhook delivery thread failed: ${err.message}`));
    worker.on('exit', (code) => this.stopped(worker, `the webhook delivery thread stopped (exit code ${code})`));
    this.worker = worker;
    return worker;
  }

  private answered(reply: ThreadReply): void {
    const waiting = this.settle(reply.id);
    if (waiting === undefined) return;
    if ('status' in reply) waiting.resolve({ status: reply.status });
    else waiting.reject(new WebhookPostFailure(reply.error));
  }

  /** Forgets attempt `id` (answered or aborted); the thread is let go once none waits. */
  private settle(id: number): Waiting | undefined {
    const waiting = this.waiting.get(id);
    if (waiting === undefined) return undefined;
    this.waiting.delete(id);
    waiting.detach();
    if (this.waiting.size === 0) this.worker?.unref();
    return waiting;
  }

  /** The thread is gone: every attempt waiting on it fails (the outbox retries it), and the next one starts a new thread. */
  private stopped(worker: Worker, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const failure = new WebhookPostFailure(reason);
    for (const id of [...this.waiting.keys()]) this.settle(id)?.reject(failure);
  }
}
