/** A runtime in simulated time behind a real gateway on 127.0.0.1 port 0, and a raw `ws` client to talk to it. */
import { readFile, writeFile } from 'node:fs/promises';
import { expect, vi } from 'vitest';
import WebSocket from 'ws';
import type { CliIo } from '../../src/client/commands/cli-io.js';
import { startGateway, type Gateway, type GatewayOptions } from '../../src/gateway/http-server.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';

/** The token every gateway test uses. */
export const TEST_TOKEN = 'test-token-0123456789abcdef';

/** The CLI's I/O against a test gateway (its harness, or a URL of one) with `token`; what it printed in `out` and `err`. */
export function cliIo(
  gateway: GatewayHarness | string,
  token = TEST_TOKEN,
): CliIo & { out: () => string; err: () => string } {
  const url = typeof gateway === 'string' ? gateway : gateway.gateway.url;
  let stdout = '';
  let stderr = '';
  return {
    env: { VIGIL_HOST: '127.0.0.1', VIGIL_PORT: new URL(url).port, VIGIL_TOKEN: token },
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readFile: (path) => readFile(path, 'utf8'),
    writeFile: (path, text) => writeFile(path, text),
    interrupted: () => new Promise(() => undefined),
    out: () => stdout,
    err: () => stderr,
  };
}

/** Advances simulated time a beat at a time until `done` holds (a fixture server answers on real I/O). */
export async function advanceUntil(harness: GatewayHarness, done: () => boolean): Promise<void> {
  await vi.waitFor(
    async () => {
      await harness.advance(1000, 1000);
      expect(done()).toBe(true);
    },
    { timeout: 15_000, interval: 10 },
  );
}

/** An MCP `initialize` request, as a raw client sends it. */
export const MCP_INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
} as const;

/** POSTs `body` to the gateway's `/mcp` at `url` with `token` (and the session, when one is named). */
export function mcpPost(url: string, token: string, body: unknown, session?: string): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(session === undefined ? {} : { 'mcp-session-id': session }),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(body),
  });
}

/** A runtime harness plus its gateway. */
export interface GatewayHarness extends RuntimeHarness {
  gateway: Gateway;
  /** `ws://127.0.0.1:PORT/rpc`. */
  rpcUrl: string;
  /** Opens a raw client (with the test token unless told otherwise). */
  connect(options?: { token?: string | null; query?: string }): Promise<RawClient>;
  /** Advances simulated time one beat at a time until `promise` settles (bounded), then returns its outcome. */
  until<T>(promise: Promise<T>, maxBeats?: number): Promise<T>;
  close(): Promise<void>;
}

/** A JSON frame the client received. */
export type Frame = Record<string, unknown> & { id?: unknown; method?: string; params?: Record<string, unknown> };

/** A bare `ws` client that records every frame it receives. */
export class RawClient {
  readonly frames: unknown[] = [];
  private waiters: Array<{ test: (frame: unknown) => boolean; resolve: (frame: unknown) => void }> = [];
  private nextId = 1;
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const frame: unknown = JSON.parse((data as Buffer).toString());
      this.frames.push(frame);
      for (const waiter of [...this.waiters]) {
        if (waiter.test(frame)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(frame);
        }
      }
    });
    this.closed = new Promise((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
  }

  /** Sends raw text (or a value as JSON). */
  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Resolves with the first frame (already received or to come) passing `test`; fails after a safety timeout. */
  waitFor(test: (frame: Frame) => boolean, what = 'a frame', timeoutMs = 10_000): Promise<Frame> {
    const seen = this.frames.find((frame) => test(frame as Frame));
    if (seen !== undefined) return Promise.resolve(seen as Frame);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      this.waiters.push({
        test: (frame) => test(frame as Frame),
        resolve: (frame) => {
          clearTimeout(timer);
          resolve(frame as Frame);
        },
      });
    });
  }

  /** Sends a frame and resolves with the next frame received after it (for batches and id-less errors). */
  async exchange(frame: unknown): Promise<unknown> {
    const before = this.frames.length;
    this.send(frame);
    return this.waitFor(() => this.frames.length > before, 'a reply');
  }

  /** Sends a request with a fresh id and resolves with its response object. */
  async request(method: string, params?: unknown): Promise<Frame> {
    const id = `r${this.nextId++}`;
    this.send({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }), id });
    return this.waitFor((frame) => frame.id === id, `the response to ${method}`);
  }

  /** The notifications received so far for `method`. */
  notifications(method: string): Array<Record<string, unknown>> {
    return (this.frames as Frame[]).filter((frame) => frame.method === method).map((frame) => frame.params!);
  }

  /** Closes (a paused client is resumed first, so the close handshake can complete). */
  close(): Promise<{ code: number; reason: string }> {
    if (this.ws.isPaused) this.ws.resume();
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close();
    return this.closed;
  }
}

/** Opens a raw WebSocket to `url` and resolves once open. */
export function openRaw(url: string, token: string | null, query = ''): Promise<RawClient> {
  const ws = new WebSocket(`${url}${query}`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
  const client = new RawClient(ws);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('error', reject);
  });
}

/** Starts a runtime (simulated clock, memory-level) and a gateway in front of it. */
export async function startGatewayHarness(
  options: { runtime?: Parameters<typeof startRuntime>[0]; gateway?: Partial<GatewayOptions> } = {},
): Promise<GatewayHarness> {
  const harness = await startRuntime(options.runtime);
  const gateway = await startGateway({
    host: '127.0.0.1',
    port: 0,
    runtime: harness.runtime,
    token: TEST_TOKEN,
    ...options.gateway,
  });
  const rpcUrl = `${gateway.url.replace('http', 'ws')}/rpc`;
  const clients: RawClient[] = [];
  return {
    ...harness,
    gateway,
    rpcUrl,
    async connect({ token = TEST_TOKEN, query = '' } = {}) {
      const client = await openRaw(rpcUrl, token, query);
      clients.push(client);
      return client;
    },
    async until<T>(promise: Promise<T>, maxBeats = 30): Promise<T> {
      let settled = false;
      const watched = promise.finally(() => (settled = true));
      watched.catch(() => undefined);
      for (let beat = 0; beat < maxBeats * 10 && !settled; beat += 1) {
        await harness.advance(100, 100);
        // Real I/O (the socket) needs a turn of the event loop that setImmediate alone may not give.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      return watched;
    },
    async close() {
      for (const client of clients) await client.close().catch(() => undefined);
      await gateway.close();
      await harness.runtime.stop().catch(() => undefined);
    },
  };
}
