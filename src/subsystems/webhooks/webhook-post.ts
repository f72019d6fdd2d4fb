/**
 * The HTTP side of one delivery attempt, behind a function type the outbox takes, so a test or the simulator can put
 * any receiver there; `fetchWebhookPost` is the real one (Node's fetch): no redirects followed, the response body read
 * up to a small bound and dropped.
 */
import { describeError } from '../../errors.js';

/** One POST: where, the signed headers, the body, and the signal that aborts it at the timeout. */
export interface WebhookRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string;
  signal: AbortSignal;
}

/** What came back: the HTTP status (2xx delivered, anything else failed). */
export interface WebhookResponse {
  status: number;
}

/** Sends one attempt; rejects when no HTTP answer came (refused, reset, DNS, aborted). */
export type WebhookPost = (request: WebhookRequest) => Promise<WebhookResponse>;

/** At most this much of a response body is read (and dropped): a receiver cannot make Vigil hold its reply. */
export const RESPONSE_BODY_LIMIT_BYTES = 4096;

/** The real POST, by Node's fetch: `redirect: 'manual'` (a 3xx is a failure), the body read up to 4 KB. */
export const fetchWebhookPost: WebhookPost = async (request) => {
  const response = await fetch(request.url, {
    method: 'POST',
    headers: request.headers,
    body: request.body,
    redirect: 'manual',
    signal: request.signal,
  });
  await drainBounded(response);
  return { status: response.status };
};

// Reading (a little of) the body lets the connection be reused; past the bound the rest is cancelled, not awaited.
async function drainBounded(response: Response): Promise<void> {
  const reader: ReadableStreamDefaultReader<Uint8Array> | undefined = response.body?.getReader();
  if (reader === undefined) return;
  let read = 0;
  try {
    while (read < RESPONSE_BODY_LIMIT_BYTES) {
      const chunk = await reader.read();
      if (chunk.done) return;
      read += chunk.value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The status is what counts; a body cut short changes nothing.
  }
}

/** A failed POST in a sentence: the reason and, for a network fault, its code (`ECONNREFUSED`), never the headers. */
export function describePostError(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const text = describeError(err).replace(/\.$/, '');
  return code === undefined || text.includes(code) ? text : `${text} (${code})`;
}
