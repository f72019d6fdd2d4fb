/**
 * One attempt at an endpoint: the POST (warm, or cold through the retry thread) raced against the timeout on the
 * injected clock, and its outcome as the stored attempt and as the metrics name it. The outbox's lanes decide what to
 * send and when; this only sends once and says how it went.
 */
import type { WebhookAttempt, WebhookRecord } from '../../protocol/webhooks.schema.js';
import type { WebhookOutboxOptions, WebhookOutcome } from './webhook-outbox-options.js';
import { describePostError } from './webhook-post.js';
import { signedRequest, type WebhookSigner } from './webhook-signing.js';

/** The outcome of one POST. */
export interface PostOutcome {
  at: number;
  status?: number;
  error?: string;
  ms: number;
  timedOut: boolean;
}

/** What one POST is: to which endpoint, signed by whom, over which connection. */
export interface AttemptRequest {
  record: WebhookRecord;
  /** The lane's signer; none for `webhooks.test` (the retry thread signs, or `signedRequest` makes one). */
  signer: WebhookSigner | undefined;
  webhookId: string;
  body: string;
  /** `cold`: by `retryPost`, when there is one. */
  connection: 'warm' | 'cold';
  /** Where the attempt's abort controller is kept while it runs, for `stop` and `remove` to abort it (a lane). */
  holder?: { inflight: AbortController | undefined };
}

export const is2xx = (status: number | undefined): boolean => status !== undefined && status >= 200 && status < 300;

/**
 * Why an attempt is aborted at the timeout. Made once: `abort()` without a reason makes a DOMException, and with it a
 * stack trace, at every timed-out attempt (a slow endpoint times out at each backoff step).
 */
const TIMEOUT_REASON = new Error('the webhook attempt had no answer within the timeout');
/** What the timer gives the race at the timeout: a value, not a rejection, so no error is made for it either. */
const TIMED_OUT = Symbol('timed out');

/** One POST with the timeout on the injected clock; never rejects. */
export async function postAttempt(
  options: Pick<WebhookOutboxOptions, 'clock' | 'settings' | 'post' | 'retryPost'>,
  { record, signer, webhookId, body, connection, holder }: AttemptRequest,
): Promise<PostOutcome> {
  const { clock, settings } = options;
  const startedAt = clock.now();
  const controller = new AbortController();
  if (holder !== undefined) holder.inflight = controller;
  let timer: unknown;
  let timedOut = false;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = clock.setTimeout(() => {
      timedOut = true;
      controller.abort(TIMEOUT_REASON);
      resolve(TIMED_OUT);
    }, settings.timeoutMs);
  });
  const timedOutOutcome = (at: number): PostOutcome => ({
    at,
    error: `no answer within ${settings.timeoutMs} ms`,
    ms: at - startedAt,
    timedOut: true,
  });
  try {
    const unsigned = {
      url: record.url,
      body,
      webhookId,
      atMs: startedAt,
      secret: record.secret,
      signal: controller.signal,
    };
    const { retryPost } = options;
    const sent =
      connection === 'cold' && retryPost !== undefined
        ? retryPost(unsigned)
        : options.post(signedRequest(unsigned, signer));
    const response = await Promise.race([sent, timeout]);
    const at = clock.now();
    if (response === TIMED_OUT) return timedOutOutcome(at);
    const status = response.status;
    const error = is2xx(status) ? undefined : `HTTP ${status}`;
    return { at, status, ms: at - startedAt, timedOut: false, ...(error === undefined ? {} : { error }) };
  } catch (err) {
    const at = clock.now();
    // A POST that rejects as it is aborted (before the timer's value reaches the race) timed out all the same.
    if (timedOut) return timedOutOutcome(at);
    return { at, error: describePostError(err), ms: at - startedAt, timedOut: false };
  } finally {
    clock.clearTimeout(timer);
    if (holder !== undefined && holder.inflight === controller) holder.inflight = undefined;
  }
}

/** The attempt as `webhooks.deliveries` keeps it. */
export function attemptOf(seq: number, webhookId: string, attempt: number, outcome: PostOutcome): WebhookAttempt {
  return {
    seq,
    webhookId,
    attempt,
    at: new Date(outcome.at).toISOString(),
    ...(outcome.status === undefined ? {} : { status: outcome.status }),
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    ms: Math.max(0, outcome.ms),
  };
}

/** How the deliveries counter names the outcome. */
export function outcomeName(outcome: PostOutcome): WebhookOutcome {
  if (is2xx(outcome.status)) return 'delivered';
  return outcome.timedOut ? 'timeout' : 'failed';
}
