/** A runtime in simulated time behind a real gateway on 127.0.0.1 port 0, and a raw `ws` client to talk to it. */
import WebSocket from 'ws';
import { startGateway, type Gateway, type GatewayOptions } from '../../src/gateway/http-server.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';

/** The token every gateway test uses. */
export const TEST_TOKEN = 'test-token-0123456789abcdef';

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
