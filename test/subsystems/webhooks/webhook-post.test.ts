import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  describePostError,
  httpWebhookPost,
  RESPONSE_BODY_LIMIT_BYTES,
} from '../../../src/subsystems/webhooks/webhook-post.js';

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

const HEADERS = {
  'content-type': 'application/json',
  'webhook-id': 'evt_1_abc',
  'webhook-timestamp': '1764000000',
  'webhook-signature': 'v1,c2lnbmF0dXJl',
};
const BODY = JSON.stringify({ seq: 1, type: 'agent.reply', text: 'héllo' });

const post = (url: string, signal = new AbortController().signal) =>
  httpWebhookPost({ url, headers: HEADERS, body: BODY, signal });

describe('httpWebhookPost (node:http against a local receiver)', () => {
  it('POSTs the body with the signed headers and its byte length, and answers with the status', async () => {
    const hook = await receiver((_req, res) => res.writeHead(204).end());
    await expect(post(hook.url)).resolves.toEqual({ status: 204 });
    const [request] = hook.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/hook');
    expect(request?.body).toBe(BODY);
    expect(request?.headers).toMatchObject({
      ...HEADERS,
      'content-length': String(Buffer.byteLength(BODY)),
      'user-agent': 'Vigil-Webhooks',
    });
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

describe('describePostError', () => {
  it('names the code of a network fault, as Node raises it or as fetch wraps it, once', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(describePostError(refused)).toBe('connect ECONNREFUSED 127.0.0.1:9');
    const wrapped = new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
    expect(describePostError(wrapped)).toBe('fetch failed (ECONNRESET)');
    expect(describePostError(new Error('socket hang up.'))).toBe('socket hang up');
  });
});
