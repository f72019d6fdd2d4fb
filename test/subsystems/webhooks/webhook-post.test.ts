import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  describePostError,
  httpWebhookPost,
  RESPONSE_BODY_LIMIT_BYTES,
  type UnsignedWebhookRequest,
  type WebhookResponse,
} from '../../../src/subsystems/webhooks/webhook-post.js';
import { WebhookPostThread } from '../../../src/subsystems/webhooks/webhook-post-thread.js';
import { newWebhookSecret, signedRequest } from '../../../src/subsystems/webhooks/webhook-signing.js';

/** A local receiver on 127.0.0.1 port 0: what it was sent, on how many connections, and a handler per test. */
interface Receiver {
  url: string;
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: string }>;
  connections: number;
  close(): Promise<void>;
}

const servers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of servers.splice(0)) await close();
});

async function receiver(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<Receiver> {
  const sockets = new Set<Socket>();
  const received: Receiver = { url: '', requests: [], connections: 0, close: () => Promise.resolve() };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      handle(req, res);
    });
  });
  server.on('connection', (socket) => {
    received.connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  received.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const close = (): Promise<void> => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  received.close = close;
  servers.push(close);
  return received;
}

const SECRET = newWebhookSecret();
const WEBHOOK_ID = 'evt_1_abc';
const BODY = JSON.stringify({ seq: 1, type: 'agent.reply', text: 'héllo' });

/** An attempt at `url` as the outbox hands it over, made now (the verifier refuses a timestamp five minutes off). */
const unsigned = (url: string, signal = new AbortController().signal): UnsignedWebhookRequest => ({
  url,
  body: BODY,
  webhookId: WEBHOOK_ID,
  atMs: Date.now(),
  secret: SECRET,
  signal,
});

const thread = new WebhookPostThread();
afterAll(() => thread.close());

// The same POST signed and sent on the calling thread, and on the thread the daemon sends retries from: each case
// holds for both.
describe.each<[string, (request: UnsignedWebhookRequest) => Promise<WebhookResponse>]>([
  ['httpWebhookPost (signed and sent on the calling thread)', (request) => httpWebhookPost(signedRequest(request))],
  ['WebhookPostThread (signed and sent on a worker thread)', thread.post],
])('%s, against a local receiver', (_name, send) => {
  const post = (url: string, signal = new AbortController().signal) => send(unsigned(url, signal));

  it('POSTs the body with the signed headers and its byte length, and answers with the status', async () => {
    const hook = await receiver((_req, res) => res.writeHead(204).end());
    await expect(post(hook.url)).resolves.toEqual({ status: 204 });
    const [request] = hook.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/hook');
    expect(request?.body).toBe(BODY);
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': WEBHOOK_ID,
      'content-length': String(Buffer.byteLength(BODY)),
      'user-agent': 'Vigil-Webhooks',
    });
    // Signed under the secret as the specification says: the standardwebhooks verifier accepts it.
    expect(new Webhook(SECRET).verify(request!.body, request!.headers as Record<string, string>)).toEqual(
      JSON.parse(BODY),
    );
  });

  it('does not follow a redirect: the 3xx is the answer, and the other URL is never asked', async () => {
    const elsewhere = await receiver((_req, res) => res.writeHead(200).end());
    const hook = await receiver((_req, res) => res.writeHead(302, { location: elsewhere.url }).end());
    await expect(post(hook.url)).resolves.toEqual({ status: 302 });
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('reads at most the bound of an endless body: it answers with the status and drops the connection', async () => {
    const hook = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(1024);
      // Never ends: the client must stop reading on its own.
      const timer = setInterval(() => res.write(chunk), 1);
      res.on('close', () => clearInterval(timer));
    });
    await expect(post(hook.url)).resolves.toEqual({ status: 200 });
    expect(RESPONSE_BODY_LIMIT_BYTES).toBe(4096);
  });

  it('carries the next event on the same kept-alive connection', async () => {
    const hook = await receiver((_req, res) => res.writeHead(200).end('ok'));
    await post(hook.url);
    await post(hook.url);
    await post(hook.url);
    expect(hook.requests).toHaveLength(3);
    expect(hook.connections).toBe(1);
  });

  it('rejects a refused connection with its code', async () => {
    const gone = await receiver(() => {});
    const url = gone.url;
    await gone.close();
    const err = await post(url).catch((e: unknown) => e);
    expect(describePostError(err)).toMatch(/ECONNREFUSED/);
  });

  it('rejects at once when its signal aborts an attempt the receiver holds', async () => {
    const hook = await receiver(() => {});
    const controller = new AbortController();
    const sent = post(hook.url, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort(new Error('timed out'));
    await expect(sent).rejects.toThrow();
  });
});

describe('WebhookPostThread', () => {
  const post = (url: string, signal = new AbortController().signal) => thread.post(unsigned(url, signal));

  it('aborts on the thread too: the rejection carries the reason, and the receiver sees the connection dropped', async () => {
    let dropped!: () => void;
    const droppedConnection = new Promise<void>((resolve) => (dropped = resolve));
    const hook = await receiver((_req, res) => res.on('close', dropped));
    const controller = new AbortController();
    const sent = post(hook.url, controller.signal);
    await expect.poll(() => hook.requests.length).toBe(1);
    const reason = new Error('no answer within 10000 ms');
    controller.abort(reason);
    await expect(sent).rejects.toBe(reason);
    await droppedConnection;
    expect(thread.inFlight).toBe(0);
  });

  it('sends nothing for a signal aborted before the attempt', async () => {
    const hook = await receiver((_req, res) => res.writeHead(200).end());
    const controller = new AbortController();
    controller.abort(new Error('stopped'));
    await expect(post(hook.url, controller.signal)).rejects.toThrow('stopped');
    expect(hook.requests).toHaveLength(0);
  });

  it('fails the attempts in flight when the thread stops, and starts a new one for the next attempt', async () => {
    const own = new WebhookPostThread();
    const held = await receiver(() => {});
    const sent = own.post(unsigned(held.url));
    await expect.poll(() => held.requests.length).toBe(1);
    await own.close();
    await expect(sent).rejects.toThrow(/the webhook delivery thread stopped/);
    expect(own.inFlight).toBe(0);
    const hook = await receiver((_req, res) => res.writeHead(200).end());
    await expect(own.post(unsigned(hook.url))).resolves.toEqual({ status: 200 });
    await own.close();
  });
});

describe('describePostError', () => {
  it('names the code of a network fault, as Node raises it or as fetch wraps it, once', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(describePostError(refused)).toBe('connect ECONNREFUSED 127.0.0.1:9');
    const wrapped = new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
    expect(describePostError(wrapped)).toBe('fetch failed (ECONNRESET)');
    expect(describePostError(new Error('socket hang up.'))).toBe('socket hang up');
  });
});
