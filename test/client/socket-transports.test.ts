/**
 * The client's two transports on their own, against a bare `ws` server: how each presents the token (Node: a Bearer
 * header; the browser: `?token=`, never a header), frames as text, and what a refusal says.
 */
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { browserSocket } from '../../src/client/browser-socket.js';
import type { OpenSocket, SocketListener } from '../../src/client/client-socket.js';
import { openNodeSocket } from '../../src/client/node-socket.js';

const TOKEN = 'transport-token-9e1f';
const servers: WebSocketServer[] = [];
afterEach(async () => {
  vi.unstubAllGlobals();
  for (const server of servers.splice(0)) {
    for (const ws of server.clients) ws.terminate();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server on port 0 that records each upgrade request and answers the first frame with a text and a binary frame. */
async function startServer(options: { refuse?: boolean } = {}): Promise<{ url: string; upgrades: IncomingMessage[] }> {
  const upgrades: IncomingMessage[] = [];
  const server = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    verifyClient: (info, done) => {
      upgrades.push(info.req);
      if (options.refuse) done(false, 401, 'Unauthorized');
      else done(true);
    },
  });
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  server.on('connection', (ws) =>
    ws.once('message', () => {
      ws.send('{"text":"é"}');
      ws.send(Buffer.from('{"binary":"ü"}'), { binary: true });
    }),
  );
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`, upgrades };
}

/** Opens a socket with `open`, recording what it tells its listener; `done` settles on close. */
function record(open: OpenSocket, url: string, token: string | undefined) {
  const seen: string[] = [];
  let opened!: () => void;
  const isOpen = new Promise<void>((resolve) => (opened = resolve));
  let closed!: () => void;
  const done = new Promise<void>((resolve) => (closed = resolve));
  const listener: SocketListener = {
    open: () => {
      seen.push('open');
      opened();
    },
    message: (text) => seen.push(`message ${text}`),
    error: (err) => seen.push(`error ${err.message}`),
    close: () => {
      seen.push('close');
      closed();
    },
  };
  const socket = open(url, token, listener);
  return { socket, seen, isOpen, done };
}

const TRANSPORTS: Array<{ transport: string; open: OpenSocket }> = [
  { transport: "Node's (ws)", open: openNodeSocket },
  { transport: "the browser's (WHATWG WebSocket)", open: browserSocket(WebSocket) },
];

describe.each(TRANSPORTS)('the client socket: $transport', ({ open }) => {
  it('hands every frame to the listener as text, binary ones decoded as UTF-8, then reports the close once', async () => {
    const server = await startServer();
    const { socket, seen, isOpen, done } = record(open, server.url, TOKEN);
    await isOpen;
    expect(socket.readyState).toBe(1);
    socket.send('{"hello":true}');
    await vi.waitFor(() => expect(seen).toHaveLength(3), { timeout: 10_000, interval: 5 });
    socket.close(1000, 'done');
    await done;
    expect(seen).toEqual(['open', 'message {"text":"é"}', 'message {"binary":"ü"}', 'close']);
    expect(socket.readyState).toBe(3);
  });
});

describe('how each transport presents the token', () => {
  it('Node sends it as an Authorization: Bearer header and keeps it out of the URL', async () => {
    const server = await startServer();
    const { socket, isOpen } = record(openNodeSocket, server.url, TOKEN);
    await isOpen;
    expect(server.upgrades[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(server.upgrades[0]?.url).toBe('/rpc');
    socket.close(1000, 'done');
  });

  it('the browser sends it as ?token= (a page cannot set headers on a WebSocket) and sends no Authorization header', async () => {
    const server = await startServer();
    const { socket, isOpen } = record(browserSocket(WebSocket), server.url, TOKEN);
    await isOpen;
    expect(server.upgrades[0]?.url).toBe(`/rpc?token=${TOKEN}`);
    expect(server.upgrades[0]?.headers.authorization).toBeUndefined();
    socket.close(1000, 'done');
  });

  it('neither sends a token it was not given', async () => {
    const server = await startServer();
    for (const { open } of TRANSPORTS) {
      const { socket, isOpen } = record(open, server.url, undefined);
      await isOpen;
      socket.close(1000, 'done');
    }
    expect(server.upgrades.map((req) => [req.url, req.headers.authorization])).toEqual([
      ['/rpc', undefined],
      ['/rpc', undefined],
    ]);
  });
});

describe('what a refused upgrade tells the listener', () => {
  it('Node names the 401 (the client turns it into GATEWAY_UNAUTHORIZED)', async () => {
    const server = await startServer({ refuse: true });
    const { seen, done } = record(openNodeSocket, server.url, 'wrong');
    await done;
    expect(seen).toEqual(['error Unexpected server response: 401', 'close']);
  });

  it('the browser says what it may be, as a browser is never told the status, and never repeats the token', async () => {
    const server = await startServer({ refuse: true });
    const { seen, done } = record(browserSocket(WebSocket), server.url, TOKEN);
    await done;
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatch(
      /^error the gateway refused the connection or could not be reached .*wrong token.*stopped daemon/,
    );
    expect(seen[0]).not.toContain(TOKEN);
    expect(seen[1]).toBe('close');
  });

  it('the browser transport fails clearly on a platform without a global WebSocket', () => {
    vi.stubGlobal('WebSocket', undefined);
    expect(() => record(browserSocket(), 'ws://127.0.0.1:9/rpc', TOKEN)).toThrow(/no global WebSocket/);
  });
});
