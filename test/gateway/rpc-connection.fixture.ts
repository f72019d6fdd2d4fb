/** One RpcConnection on a real `ws` pair (a bare WebSocketServer on 127.0.0.1 port 0), without the HTTP gateway around it. */
import { DAEMON_CALLER } from '../../src/runtime/facade/tokens.facade.js';
import type { AddressInfo } from 'node:net';
import type { Subject } from 'rxjs';
import { WebSocketServer, type WebSocket } from 'ws';
import { ALL_METHODS } from '../../src/gateway/methods/index.js';
import { RpcConnection, type ConnectionLimits } from '../../src/gateway/rpc-connection.js';
import type { RpcHandlers } from '../../src/gateway/rpc-router.js';
import { recordingLogger, type LogRecord } from '../faults/recording-logger.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { openRaw, type RawClient } from './gateway.fixture.js';

/** Small limits, so each bound is reached in a few requests. */
export const TEST_LIMITS: ConnectionLimits = {
  maxSubscriptions: 2,
  subscriberBuffer: 100,
  highWaterBytes: 256 * 1024,
  maxDropped: 10_000,
  maxInFlight: 4,
  rateLimit: { perSecond: 10, burst: 20 },
};

/** A connection under test, the raw client on the other end, and the server side's socket. */
export interface ConnectionHarness {
  h: RuntimeHarness;
  client: RawClient;
  connection: RpcConnection;
  /** The server's end of the pair (what the connection pauses and closes). */
  serverWs: WebSocket;
  records: LogRecord[];
  /** Live observers of the runtime's event bus: each open subscription is one. */
  busObservers: () => number;
  close(): Promise<void>;
}

/** Starts a simulated-clock runtime and one connection serving `handlers` (the real method table by default). */
export async function startConnection(
  options: { limits?: Partial<ConnectionLimits>; handlers?: Partial<RpcHandlers> } = {},
): Promise<ConnectionHarness> {
  const h = await startRuntime();
  const { log, records } = recordingLogger();
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  const accepted = new Promise<{ serverWs: WebSocket; connection: RpcConnection }>((resolve) =>
    wss.once('connection', (serverWs) => {
      const connection = new RpcConnection(serverWs, {
        runtime: h.runtime,
        log,
        handlers: { ...ALL_METHODS, ...options.handlers },
        discover: () => ({ openrpc: '1.3.2' }),
        lastSeq: () => h.events.at(-1)?.seq ?? 0,
        limits: { ...TEST_LIMITS, ...options.limits },
        caller: DAEMON_CALLER,
      });
      resolve({ serverWs, connection });
    }),
  );
  const client = await openRaw(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, null);
  const { serverWs, connection } = await accepted;
  return {
    h,
    client,
    connection,
    serverWs,
    records,
    busObservers: () => (h.bus as unknown as { subject: Subject<unknown> }).subject.observers.length,
    async close() {
      await client.close();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await h.runtime.stop().catch(() => undefined);
    },
  };
}

/**
 * Lets the event loop turn (socket I/O included) until `done()` holds; fails after `maxTurns` turns. A bound on
 * turns, not on time: it never waits longer than the condition needs.
 */
export async function turnsUntil(done: () => boolean, what: string, maxTurns = 10_000): Promise<void> {
  for (let turn = 0; turn < maxTurns; turn += 1) {
    if (done()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (!done()) throw new Error(`still waiting for ${what} after ${maxTurns} turns of the event loop`);
}
