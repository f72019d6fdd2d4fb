/**
 * The HTTP side of one delivery attempt, behind a function type the outbox takes, so a test or the simulator can put
 * any receiver there; `httpWebhookPost` is the real one (`node:http` / `node:https` on kept-alive connections): no
 * redirects followed, the response body read up to a small bound and dropped. The daemon sends through
 * `guardedWebhookPost`, the same under the destination policy (`webhook-destination.ts`).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { describeError } from '../../errors.js';
import { checkAddress, type DestinationPolicy, systemResolver, urlHostPort } from './webhook-destination.js';

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

/**
 * One attempt not yet signed: what to sign it with (the endpoint's secret, the event's `webhook-id`, the time of the
 * attempt) instead of the headers, so the signing runs where the POST does (`WebhookPostThread`).
 */
export interface UnsignedWebhookRequest {
  url: string;
  body: string;
  webhookId: string;
  /** When the attempt is made (ms): its `webhook-timestamp`. */
  atMs: number;
  secret: string;
  signal: AbortSignal;
}

/** Signs and sends one attempt; rejects as `WebhookPost` does. */
export type UnsignedWebhookPost = (request: UnsignedWebhookRequest) => Promise<WebhookResponse>;

/** At most this much of a response body is read (and dropped): a receiver cannot make Vigil hold its reply. */
export const RESPONSE_BODY_LIMIT_BYTES = 4096;

/**
 * An idle kept-alive connection is closed after this long (as undici, behind Node's fetch, does): a receiver that
 * closes idle connections sooner without saying so (`Keep-Alive: timeout=…`, which Node's agent honours) would
 * otherwise have the next event sent on a socket it is closing.
 */
export const IDLE_SOCKET_MS = 4_000;

// One pool per scheme for every endpoint: a healthy endpoint's events go out one after another on one connection.
const httpAgent = new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS });
const httpsAgent = new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS });

/**
 * Who is calling, as fetch said it (`node`) before: a receiver behind a firewall that refuses requests without a
 * user agent keeps taking them.
 */
export const USER_AGENT = 'Vigil-Webhooks';

// The URL was checked to be http(s) when the endpoint was added; the scheme in any case.
const HTTPS = /^https:/i;

/**
 * The real POST, by `node:http(s)` rather than Node's fetch: the same request (a 3xx is a failure, as `http.request`
 * follows no redirect; the body read up to 4 KB), at a fraction of the main thread's time per attempt. An attempt
 * is rare at a failing endpoint (one per backoff step), so it runs cold, and fetch's machinery (undici's request,
 * headers and web streams) cost about 2 ms of the heartbeat's thread for one refused connection (bench 17).
 */
export const httpWebhookPost: WebhookPost = (request) => post(request, undefined);

/**
 * `httpWebhookPost` under a destination policy (CONTRACT §16): an IP in the URL is checked before connecting, and a
 * host name is resolved when connecting, every address it answers with checked, and the connection made to a checked
 * one (a DNS answer that changed since `webhooks.add` cannot turn it to a private address). A refused destination
 * rejects with `DestinationRefused` (`EPRIVATEADDRESS`).
 */
export function guardedWebhookPost(policy: DestinationPolicy): WebhookPost {
  return (request) => post(request, policy);
}

function post(request: WebhookRequest, policy: DestinationPolicy | undefined): Promise<WebhookResponse> {
  return new Promise((resolve, reject) => {
    const secure = HTTPS.test(request.url);
    let lookup: LookupFunction | undefined;
    if (policy !== undefined) {
      const { host, port } = urlHostPort(new URL(request.url));
      try {
        if (isIP(host) !== 0) checkAddress(host, port, host, policy);
      } catch (err) {
        reject(err);
        return;
      }
      lookup = checkedLookup(port, policy);
    }
    const outgoing = (secure ? httpsRequest : httpRequest)(
      request.url,
      {
        method: 'POST',
        // A kept-alive socket from the pool was connected to an address checked when it was opened.
        agent: secure ? httpsAgent : httpAgent,
        ...(lookup === undefined ? {} : { lookup }),
        headers: {
          'user-agent': USER_AGENT,
          ...request.headers,
          'content-length': String(Buffer.byteLength(request.body)),
        },
        signal: request.signal,
      },
      (response) => readBounded(response, resolve),
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/** A `lookup` for `http.request` that resolves with the policy's resolver and refuses if any answer is refused. */
function checkedLookup(port: string, policy: DestinationPolicy): LookupFunction {
  return (hostname, options, callback) => {
    (policy.resolve ?? systemResolver)(hostname).then(
      (addresses) => {
        try {
          if (addresses.length === 0)
            throw Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
          for (const ip of addresses) checkAddress(ip, port, hostname, policy);
        } catch (err) {
          callback(err as NodeJS.ErrnoException, '', 0);
          return;
        }
        const answers = addresses.map((address) => ({ address, family: isIP(address) }));
        const wanted =
          options.family === 4 || options.family === 6 ? answers.filter((a) => a.family === options.family) : answers;
        if (options.all === true) {
          (callback as unknown as (err: null, all: typeof answers) => void)(null, wanted);
          return;
        }
        const first = wanted[0] ?? answers[0];
        callback(null, first?.address ?? '', first?.family ?? 4);
      },
      (err: unknown) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };
}

/**
 * Reads (a little of) the body, so the connection can carry the next event; past the bound the response is destroyed
 * rather than read on. The status is what counts: a body cut short, or broken off, changes nothing.
 */
function readBounded(response: IncomingMessage, resolve: (response: WebhookResponse) => void): void {
  const answered = { status: response.statusCode ?? 0 };
  const done = (): void => resolve(answered);
  let read = 0;
  response.on('data', (chunk: Buffer) => {
    read += chunk.byteLength;
    if (read < RESPONSE_BODY_LIMIT_BYTES) return;
    response.destroy();
    done();
  });
  response.on('end', done);
  response.on('error', done);
  response.on('close', done);
}

/** A failed POST in a sentence: the reason and, for a network fault, its code (`ECONNREFUSED`), never the headers. */
export function describePostError(err: unknown): string {
  const fault = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const raw = typeof fault?.code === 'string' ? fault.code : fault?.cause?.code;
  const code = typeof raw === 'string' ? raw : undefined;
  const text = describeError(err).replace(/\.$/, '');
  return code === undefined || text.includes(code) ? text : `${text} (${code})`;
}
