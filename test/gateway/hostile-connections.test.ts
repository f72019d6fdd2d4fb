/**
 * Hostile clients against the real gateway (127.0.0.1, port 0) and a simulated-clock runtime: mass connect-and-drop,
 * clients that never read, and oversized or deeply nested frames. Nothing may leak, nobody else may wait, and the
 * heartbeat keeps beating.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import type { Subject } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { MAX_FRAME_DEPTH } from '../../src/gateway/frame-depth.js';
import { MAX_FRAME_BYTES } from '../../src/gateway/http-server.js';
import { startGatewayHarness, TEST_TOKEN, type Frame, type GatewayHarness } from './gateway.fixture.js';

let h: GatewayHarness;
beforeEach(async () => {
  h = await startGatewayHarness();
});
afterEach(() => h.close());

/** Live observers of the runtime's event bus (every subscription of every connection is one). */
function busObservers(): number {
  return (h.bus as unknown as { subject: Subject<unknown> }).subject.observers.length;
}

/** Open TCP sockets on the gateway's server. */
function serverSockets(): Promise<number> {
  return new Promise((resolve, reject) =>
    h.gateway.server.getConnections((err, count) => (err ? reject(err) : resolve(count))),
  );
}

/** Opens an authenticated raw `ws` (not tracked by the harness: these tests drop their own). */
function openWs(): Promise<WebSocket> {
  const ws = new WebSocket(h.rpcUrl, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** Sends one request on a raw ws and resolves with its response. */
function call(ws: WebSocket, id: string, method: string, params?: unknown): Promise<Frame> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const frame = JSON.parse((data as Buffer).toString()) as Frame;
      if (frame.id !== id) return;
      ws.off('message', onMessage);
      resolve(frame);
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }), id }));
  });
}

/** Waits until the server holds no connection, no socket and no subscription beyond `observers`. */
async function expectNothingLeft(observers: number): Promise<void> {
  await vi.waitFor(
    async () => {
      expect(h.gateway.stats().connections).toHaveLength(0);
      expect(await serverSockets()).toBe(0);
      expect(busObservers()).toBe(observers);
    },
    { timeout: 10_000, interval: 20 },
  );
}

describe('the gateway under hostile connections', () => {
  it('leaves no connection, socket or subscription behind after 1,000 connections opened and dropped every way', async () => {
    const observers = busObservers();
    const beats = h.runtime.status().beatCount;
    const batch = 50;
    for (let start = 0; start < 1000; start += batch) {
      const sockets = await Promise.all(Array.from({ length: batch }, () => openWs()));
      // Half hold a live subscription (one with a replay) when they go.
      await Promise.all(
        sockets.map((ws, i) =>
          i % 2 === 0
            ? call(ws, `s${start + i}`, 'events.subscribe', i % 4 === 0 ? { types: ['heartbeat.*'] } : { after: 0 })
            : undefined,
        ),
      );
      for (const [i, ws] of sockets.entries()) {
        if (i % 3 === 0)
          ws.terminate(); // no close frame: the TCP connection just ends
        else if (i % 3 === 1)
          ws.close(); // a clean close handshake
        else (ws as unknown as { _socket: { destroy(): void } })._socket.destroy(); // reset under the library's feet
      }
      await h.advance(100);
    }
    // And 100 that never finish the handshake: half an upgrade request, then gone.
    await Promise.all(
      Array.from(
        { length: 100 },
        () =>
          new Promise<void>((resolve) => {
            const port = new URL(h.gateway.url).port;
            const socket = tcpConnect(Number(port), '127.0.0.1', () => {
              socket.write(`GET /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`);
              setImmediate(() => socket.destroy());
            });
            socket.on('close', () => resolve());
            socket.on('error', () => resolve());
          }),
      ),
    );
    await expectNothingLeft(observers);
    await h.advance(3000);
    expect(h.runtime.status().beatCount).toBeGreaterThan(beats + 2);
    // And the gateway still serves.
    const client = await h.connect();
    expect((await client.request('heartbeat.status'))['result']).toMatchObject({ beatCount: expect.any(Number) });
  });

  it('keeps a client that never reads within its bound, stops reading it, and serves everyone else meanwhile', async () => {
    const observers = busObservers();
    // The server's end of the deaf client's TCP connection (the first accepted from now on), to see it stop reading.
    const deafSocket = new Promise<Socket>((resolve) => h.gateway.server.once('connection', resolve));
    const deaf = await openWs();
    const serverSide = await deafSocket;
    const other = await h.connect();
    const discoverBytes = JSON.stringify((await other.request('rpc.discover'))['result']).length;
    // The deaf client's own socket stops reading: every response piles up on the server's side.
    deaf.pause();
    for (let i = 0; i < 400; i += 1) deaf.send(JSON.stringify({ jsonrpc: '2.0', method: 'rpc.discover', id: i }));
    // 400 answers would be 400 × discoverBytes; the server stops reading past its high-water mark instead. Once it has
    // stopped reading with nothing left in flight, it adds nothing more until the client reads: what it holds then is
    // what it holds for good.
    const deafConnection = () => h.gateway.stats().connections.find((c) => c.bufferedAmount > 0);
    await vi.waitFor(
      () => {
        expect(serverSide.isPaused()).toBe(true);
        expect(deafConnection()).toMatchObject({ inFlight: 0 });
      },
      { timeout: 5000, interval: 5 },
    );
    const deafStats = deafConnection()!;
    expect(400 * discoverBytes).toBeGreaterThan(8 * 1024 * 1024);
    // 4 × the 256 KiB high-water mark, plus what was being answered when it tripped (at most 64 frames).
    expect(deafStats.bufferedAmount).toBeLessThan(1024 * 1024 + 64 * (discoverBytes + 100));
    const started = Date.now();
    expect((await other.request('heartbeat.status'))['result']).toMatchObject({ beatCount: expect.any(Number) });
    expect(Date.now() - started).toBeLessThan(1000);
    const beats = h.runtime.status().beatCount;
    await h.advance(3000);
    expect(h.runtime.status().beatCount).toBeGreaterThan(beats + 2);
    deaf.terminate();
    await other.close();
    await expectNothingLeft(observers);
  });

  it('closes only the sender of an oversized frame with 1009, and answers deeply nested frames with -32600 without parsing them', async () => {
    const bystander = await h.connect();
    const big = await Promise.all(Array.from({ length: 5 }, () => h.connect()));
    for (const client of big) client.send(`"${'x'.repeat(MAX_FRAME_BYTES)}"`);
    for (const client of big) expect((await client.closed).code).toBe(1009);

    const nested = await h.connect();
    const depth = 400_000;
    const frames = [
      '['.repeat(depth) + ']'.repeat(depth),
      '{"a":'.repeat(150_000) + '1' + '}'.repeat(150_000),
      '['.repeat(900_000),
      `{"jsonrpc":"2.0","method":"goals.add","params":{"title":"x","priority":${'['.repeat(depth)}${']'.repeat(depth)}},"id":"deep"}`,
    ];
    // Refused by a linear scan, never handed to JSON.parse (which takes 150–400 ms on such a frame): the server
    // runs in this process, so a spy sees every parse, and none may be of a frame this long.
    const parse = vi.spyOn(JSON, 'parse');
    for (const frame of frames) {
      expect(frame.length).toBeLessThanOrEqual(MAX_FRAME_BYTES);
      const answer = (await nested.exchange(frame)) as Frame;
      expect(answer).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32600,
          message: 'Invalid Request',
          data: { reason: `the frame nests deeper than ${MAX_FRAME_DEPTH} levels`, vigilCode: 'RPC_INVALID_REQUEST' },
        },
        id: null,
      });
    }
    expect(parse.mock.calls.filter(([text]) => typeof text === 'string' && text.length > 100_000)).toEqual([]);
    parse.mockRestore();
    // Nesting within the limit is parsed and answered as usual.
    const shallow = await nested.request('goals.add', {
      title: 'x',
      priority: JSON.parse('['.repeat(100) + ']'.repeat(100)),
    });
    expect((shallow['error'] as { code: number }).code).toBe(-32602);
    expect(nested.ws.readyState).toBe(WebSocket.OPEN);
    expect((await bystander.request('heartbeat.status'))['result']).toMatchObject({ beatCount: expect.any(Number) });
    const beats = h.runtime.status().beatCount;
    await h.advance(2000);
    expect(h.runtime.status().beatCount).toBeGreaterThan(beats);
  });
});
