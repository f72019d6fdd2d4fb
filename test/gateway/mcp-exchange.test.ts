/**
 * `/mcp`'s Node side of the SDK's web-standard transport: a POST answer whole within the hold goes out in one write
 * (as JSON when it is one message), a later one streams as before, a GET streams at once; on a real HTTP server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { singleMessage, writeResponse } from '../../src/gateway/mcp-exchange.js';

const EVENT = (message: unknown): string => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
const ANSWER = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'a\nb' }] } };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': 's1' };

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    // A kept-alive connection would hold close() open for the socket timeout.
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A stream the test writes to, and whether the server cancelled it. */
function eventStream(): {
  body: ReadableStream<Uint8Array>;
  push(text: string): void;
  end(): void;
  cancelled: Promise<void>;
} {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let onCancel!: () => void;
  const cancelled = new Promise<void>((resolve) => (onCancel = resolve));
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c), cancel: () => onCancel() });
  return {
    body,
    push: (text) => controller.enqueue(new TextEncoder().encode(text)),
    end: () => controller.close(),
    cancelled,
  };
}

/** Serves every request with `respond()`'s Response, held up to `holdMs`; resolves with the server's URL. */
async function serve(respond: () => Response, holdMs: number): Promise<string> {
  const server = createServer((_req, res) => void writeResponse(respond(), res, holdMs));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe('singleMessage', () => {
  it("gives back the one message's JSON, and nothing for more events, a comment, an id or another framing", () => {
    const json = JSON.stringify(ANSWER);
    expect(singleMessage(EVENT(ANSWER))).toBe(json);
    expect(singleMessage(EVENT(ANSWER) + EVENT(ANSWER))).toBeUndefined();
    expect(singleMessage(`: keepalive\n\n${EVENT(ANSWER)}`)).toBeUndefined();
    expect(singleMessage(`event: message\nid: 3\ndata: ${json}\n\n`)).toBeUndefined();
    expect(singleMessage(`event: message\ndata: ${json}\n`)).toBeUndefined();
    expect(singleMessage('event: message\ndata: \n\n')).toBeUndefined();
    expect(singleMessage('')).toBeUndefined();
  });
});

describe('writeResponse', () => {
  it('sends an event stream that ends within the hold as one JSON answer, with its length and headers', async () => {
    const url = await serve(() => {
      const stream = eventStream();
      stream.push(EVENT(ANSWER));
      stream.end();
      return new Response(stream.body, { status: 200, headers: SSE_HEADERS });
    }, 1000);
    const response = await fetch(url, { method: 'POST' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('mcp-session-id')).toBe('s1');
    const text = await response.text();
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(JSON.parse(text)).toEqual(ANSWER);
  });

  it('sends a whole stream of more than one event as the event stream it is, in one piece', async () => {
    const notice = { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1, progressToken: 't' } };
    const url = await serve(() => {
      const stream = eventStream();
      stream.push(EVENT(notice));
      stream.push(EVENT(ANSWER));
      stream.end();
      return new Response(stream.body, { status: 200, headers: SSE_HEADERS });
    }, 1000);
    const response = await fetch(url, { method: 'POST' });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('content-length')).not.toBeNull();
    expect(await response.text()).toBe(EVENT(notice) + EVENT(ANSWER));
  });

  it('starts the event stream when the hold runs out, then streams what comes after', async () => {
    const stream = eventStream();
    const url = await serve(() => new Response(stream.body, { status: 200, headers: SSE_HEADERS }), 20);
    // The headers arrive with nothing written yet: the answer is still being worked on.
    const response = await fetch(url, { method: 'POST' });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('content-length')).toBeNull();
    stream.push(EVENT(ANSWER));
    stream.end();
    expect(await response.text()).toBe(EVENT(ANSWER));
  });

  it('streams at once without a hold (a GET), and cancels the stream when the client goes away', async () => {
    const stream = eventStream();
    const url = await serve(() => new Response(stream.body, { status: 200, headers: SSE_HEADERS }), 0);
    const aborter = new AbortController();
    const response = await fetch(url, { signal: aborter.signal });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    stream.push(': keepalive\n\n');
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(': keepalive\n\n');
    aborter.abort();
    await stream.cancelled;
  });

  it('passes an answer that is not an event stream through, and one with no body', async () => {
    const error = JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    const notFound = await serve(
      () => new Response(error, { status: 404, headers: { 'content-type': 'application/json' } }),
      1000,
    );
    const response = await fetch(notFound, { method: 'POST' });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(error)));
    expect(await response.text()).toBe(error);
    const accepted = await serve(() => new Response(null, { status: 202 }), 1000);
    const empty = await fetch(accepted, { method: 'POST' });
    expect(empty.status).toBe(202);
    expect(await empty.text()).toBe('');
  });
});
