/**
 * The typed client, run over both of its transports against a real gateway: Node's (`ws`, the token in a header) and
 * the browser's (a WHATWG WebSocket, the token as `?token=`; `ws` implements that interface too).
 */
import { firstValueFrom, filter, take, toArray } from 'rxjs';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { browserSocket } from '../../src/client/browser-socket.js';
import { ClientCore } from '../../src/client/client-core.js';
import type { ConnectOptions } from '../../src/client/connect-options.js';
import { RpcError } from '../../src/client/rpc-error.js';
import { connect as connectNode, rpcUrl } from '../../src/client/vigil-client.js';
import { isVigilError } from '../../src/errors.js';
import { startGateway } from '../../src/gateway/http-server.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from '../gateway/gateway.fixture.js';

let h: GatewayHarness | undefined;
const clients: ClientCore[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await h?.close();
  h = undefined;
});

const openBrowserSocket = browserSocket(WebSocket);

/** The client over the transport a page uses. */
async function connectBrowser(options: ConnectOptions): Promise<ClientCore> {
  const client = new ClientCore(options, openBrowserSocket);
  await client.ready();
  return client;
}

/** Lets the event loop turn (socket I/O included) until `done()`; bounded, no timers of its own. */
async function turnsUntil(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 5000 && !done(); turn += 1) await new Promise((resolve) => setImmediate(resolve));
  expect(done()).toBe(true);
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isVigilError(err) ? err.code : err).toBe(code);
}

describe('the typed client', () => {
  it('builds the /rpc URL from a daemon URL', () => {
    expect(rpcUrl('http://127.0.0.1:7420')).toBe('ws://127.0.0.1:7420/rpc');
    expect(rpcUrl('https://vigil.example:443/')).toBe('wss://vigil.example/rpc');
    expect(rpcUrl('ws://[::1]:9/rpc')).toBe('ws://[::1]:9/rpc');
  });
});

// A browser is never told the HTTP status of a refused upgrade, so its refusal is a lost connection.
const TRANSPORTS = [
  { transport: 'Node (ws)', connect: connectNode, refused: 'GATEWAY_UNAUTHORIZED' },
  { transport: 'the browser (WHATWG WebSocket)', connect: connectBrowser, refused: 'CLIENT_DISCONNECTED' },
];

describe.each(TRANSPORTS)('the typed client over $transport', ({ connect, refused }) => {
  async function open(options: Partial<ConnectOptions> = {}): Promise<ClientCore> {
    const client = await connect({ url: h!.gateway.url, token: TEST_TOKEN, ...options });
    clients.push(client);
    return client;
  }

  it('calls typed methods and validates their results', async () => {
    h = await startGatewayHarness();
    const client = await open();
    await h.advance(2000);
    const status = await client.heartbeat.status();
    expect(status.beatCount).toBe(2);
    const goal = await client.goals.add({ title: 'Ship it', priority: 6 });
    expect(await client.goals.list()).toEqual([goal]);
    expect(await client.call('goals.complete', { id: goal.id })).toMatchObject({ status: 'completed' });
    expect(await client.budget.status()).toMatchObject({ state: 'ok' });
    expect((await client.rpc.discover())['openrpc']).toBeDefined();
  });

  it('turns error responses into RpcError with the wire code and data', async () => {
    h = await startGatewayHarness();
    const client = await open();
    const saved = await h.until(client.checkpoint.create());
    const err = await client.checkpoint.restore({ id: saved.id }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect(err).toMatchObject({
      code: -32001,
      method: 'checkpoint.restore',
      data: { id: saved.id, beatCount: saved.beatCount },
    });
    expect((err as RpcError).vigilCode).toBe('CHECKPOINT_CONFIRMATION_REQUIRED');
    await expect(client.goals.complete({ id: 'g-nope' })).rejects.toMatchObject({ code: -32004 });
  });

  it(`refuses to connect with a wrong token or none: ${refused}, without the token in the message`, async () => {
    h = await startGatewayHarness();
    const wrong = await connect({ url: h.gateway.url, token: 'wrong-token-4c1d' }).catch((err: unknown) => err);
    expect(isVigilError(wrong) ? wrong.code : wrong).toBe(refused);
    expect((wrong as Error).message).not.toContain('wrong-token-4c1d');
    await expectCode(connect({ url: h.gateway.url }), refused);
  });

  it('fails a call that gets no answer in time with CLIENT_TIMEOUT', async () => {
    // A server that accepts the connection and never answers.
    const silent = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => silent.once('listening', resolve));
    try {
      const client = await connect({
        url: `ws://127.0.0.1:${(silent.address() as AddressInfo).port}/rpc`,
        requestTimeoutMs: 50,
      });
      clients.push(client);
      await expectCode(client.heartbeat.status(), 'CLIENT_TIMEOUT');
    } finally {
      for (const ws of silent.clients) ws.terminate();
      silent.close();
    }
  });

  it('delivers subscribe(types) as an Observable, filtered, until unsubscribed', async () => {
    h = await startGatewayHarness();
    const client = await open();
    const beats = firstValueFrom(client.subscribe(['heartbeat.beat']).pipe(take(3), toArray()));
    await client.heartbeat.status(); // the subscription is registered before this answer
    await h.until(beats);
    expect((await beats).map((e) => (e as { beatCount: number }).beatCount)).toEqual([1, 2, 3]);
  });

  it('reconnects with backoff after the gateway goes away and resumes each feed after the last seq it saw', async () => {
    h = await startGatewayHarness();
    const port = Number(new URL(h.gateway.url).port);
    const client = await open({ reconnect: { initialDelayMs: 5, maxDelayMs: 20 } });
    const seen: VigilEvent[] = [];
    const sub = client.subscribe(['heartbeat.beat']).subscribe((event) => seen.push(event));
    await client.heartbeat.status();
    await h.advance(2000);
    await turnsUntil(() => seen.length === 2);

    const reconnecting = firstValueFrom(client.state$.pipe(filter((s) => s === 'reconnecting')));
    await h.gateway.close();
    await reconnecting;
    await h.advance(3000); // beats 3-5 happen while nobody listens
    h.gateway = await startGateway({ host: '127.0.0.1', port, runtime: h.runtime, token: TEST_TOKEN });
    await firstValueFrom(client.state$.pipe(filter((s) => s === 'open')));
    await turnsUntil(() => seen.length === 5);
    await h.advance(1000);
    await turnsUntil(() => seen.length === 6);
    expect(seen.map((e) => (e as { beatCount: number }).beatCount)).toEqual([1, 2, 3, 4, 5, 6]);
    sub.unsubscribe();
  });

  it('completes feeds and fails later calls with CLIENT_DISCONNECTED once closed', async () => {
    h = await startGatewayHarness();
    const client = await connect({ url: h.gateway.url, token: TEST_TOKEN });
    let completed = false;
    client.subscribe().subscribe({ complete: () => (completed = true) });
    await client.close();
    expect(completed).toBe(true);
    expect(client.state$.value).toBe('closed');
    await expectCode(client.heartbeat.status(), 'CLIENT_DISCONNECTED');
  });
});
