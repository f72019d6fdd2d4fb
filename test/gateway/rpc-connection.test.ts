/** RpcConnection on its own over a real `ws` pair: framing, batches, errors, the rate limit, subscriptions and backpressure. */
import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { MAX_FRAME_DEPTH } from '../../src/gateway/frame-depth.js';
import { RATE_LIMIT_LOG_EVERY_MS } from '../../src/gateway/rpc-connection.js';
import { LEVELS } from '../faults/recording-logger.js';
import { deferred } from '../fixtures/runtime.fixture.js';
import type { Frame, RawClient } from './gateway.fixture.js';
import { startConnection, turnsUntil, type ConnectionHarness } from './rpc-connection.fixture.js';

let t: ConnectionHarness | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function start(options: Parameters<typeof startConnection>[0] = {}): Promise<ConnectionHarness> {
  t = await startConnection(options);
  return t;
}

/** Sends `frame` and proves nothing came back for it: the next frame to arrive answers a probe sent after it. */
async function expectNoResponse(client: RawClient, frame: unknown): Promise<void> {
  const before = client.frames.length;
  client.send(frame);
  const probe = await client.request('heartbeat.status');
  expect(client.frames.slice(before)).toEqual([probe]);
}

/** Resolves when the server's end of the pair has closed (and the connection's close handler has run). */
function serverClosed(serverWs: WebSocket): Promise<void> {
  return new Promise((resolve) => serverWs.once('close', () => resolve()));
}

const request = (method: string, id: unknown, params?: unknown) => ({
  jsonrpc: '2.0',
  method,
  ...(params === undefined ? {} : { params }),
  id,
});
const notification = (method: string, params?: unknown) => ({
  jsonrpc: '2.0',
  method,
  ...(params === undefined ? {} : { params }),
});

describe('RpcConnection', () => {
  it('answers a single request with its result and id', async () => {
    const { h, client } = await start();
    await h.advance(2000);
    expect(await client.exchange(request('heartbeat.status', 7))).toEqual({
      jsonrpc: '2.0',
      result: h.runtime.status(),
      id: 7,
    });
  });

  it('runs a notification and sends nothing back', async () => {
    const { h, client } = await start();
    await expectNoResponse(client, notification('goals.add', { title: 'quietly' }));
    expect(h.runtime.listGoals().map((goal) => goal.title)).toEqual(['quietly']);
  });

  it('answers a mixed batch with one array, in order, leaving out the notification', async () => {
    const { h, client } = await start();
    const batch = [
      request('heartbeat.status', 'a'),
      notification('goals.add', { title: 'in a batch' }),
      { foo: 'not a request' },
      request('no.such.method', 'b'),
      request('goals.add', 'c', { title: '' }),
      request('goals.list', 'd'),
    ];
    const responses = (await client.exchange(batch)) as Frame[];
    expect(responses).toEqual([
      { jsonrpc: '2.0', result: h.runtime.status(), id: 'a' },
      { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' }, id: null },
      { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 'b' },
      {
        jsonrpc: '2.0',
        error: expect.objectContaining({
          code: -32602,
          data: [expect.objectContaining({ vigilCode: 'RPC_INVALID_PARAMS' })],
        }),
        id: 'c',
      },
      { jsonrpc: '2.0', result: [expect.objectContaining({ title: 'in a batch' })], id: 'd' },
    ]);
  });

  it('sends nothing for a batch of notifications only, and runs each of them', async () => {
    const { h, client } = await start();
    await expectNoResponse(client, [
      notification('goals.add', { title: 'one' }),
      notification('goals.add', { title: 'two' }),
    ]);
    expect(h.runtime.listGoals()).toHaveLength(2);
  });

  it('answers an empty batch with one -32600 object, not an array', async () => {
    const { client } = await start();
    expect(await client.exchange('[]')).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request' },
      id: null,
    });
  });

  it('answers invalid JSON with -32700 and keeps the connection open', async () => {
    const { client, serverWs } = await start();
    expect(await client.exchange('{"jsonrpc": "2.0", "method": ')).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error' },
      id: null,
    });
    expect((await client.request('heartbeat.status'))['result']).toMatchObject({ beatCount: expect.any(Number) });
    expect(serverWs.readyState).toBe(serverWs.OPEN);
  });

  it('answers an unknown method with -32601 and its id', async () => {
    const { client } = await start();
    expect(await client.exchange(request('foo.bar', 'x'))).toEqual({
      jsonrpc: '2.0',
      error: { code: -32601, message: 'Method not found' },
      id: 'x',
    });
  });

  it('answers invalid params with -32602 carrying the zod issues and vigilCode RPC_INVALID_PARAMS', async () => {
    const { client } = await start();
    const response = await client.request('goals.add', { title: 'x', priority: 'high' });
    expect(response['error']).toEqual({
      code: -32602,
      message: expect.stringContaining('priority'),
      data: [expect.objectContaining({ path: ['priority'], code: 'invalid_type', vigilCode: 'RPC_INVALID_PARAMS' })],
    });
  });

  it('answers a frame nested past the depth limit with -32600 and the reason, without closing', async () => {
    const { client, serverWs } = await start();
    expect(await client.exchange('['.repeat(MAX_FRAME_DEPTH + 1))).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32600,
        message: 'Invalid Request',
        data: { reason: `the frame nests deeper than ${MAX_FRAME_DEPTH} levels`, vigilCode: 'RPC_INVALID_REQUEST' },
      },
      id: null,
    });
    expect(serverWs.readyState).toBe(serverWs.OPEN);
  });

  it('closes with 1003 on a binary frame', async () => {
    const { client } = await start();
    client.ws.send(Buffer.from(JSON.stringify(request('heartbeat.status', 1))), { binary: true });
    expect((await client.closed).code).toBe(1003);
  });

  it('serves the burst, refuses the rest with -32029 (notifications unrun), and serves again as the clock refills the bucket', async () => {
    const { h, client, connection, serverWs, records } = await start({
      limits: { rateLimit: { perSecond: 10, burst: 20 } },
    });
    const responses = (await client.exchange(
      Array.from({ length: 22 }, (_, i) => request('heartbeat.status', i)),
    )) as Frame[];
    expect(responses.filter((r) => 'result' in r)).toHaveLength(20);
    expect(responses.slice(20).map((r) => r['error'])).toEqual([
      {
        code: -32029,
        message: expect.stringMatching(/^Rate limited/),
        data: { vigilCode: 'RPC_RATE_LIMITED', limitPerSecond: 10, burst: 20, retryAfterMs: 100 },
      },
      {
        code: -32029,
        message: expect.stringMatching(/^Rate limited/),
        data: { vigilCode: 'RPC_RATE_LIMITED', limitPerSecond: 10, burst: 20, retryAfterMs: 100 },
      },
    ]);
    // A refused notification is dropped, never run; the request beside it proves the frame was handled.
    const refused = (await client.exchange([
      notification('goals.add', { title: 'refused' }),
      request('heartbeat.status', 'probe'),
    ])) as Frame[];
    expect(refused).toEqual([{ jsonrpc: '2.0', error: expect.objectContaining({ code: -32029 }), id: 'probe' }]);
    // The bucket runs on the runtime's clock: 100 simulated ms is one token.
    await h.advance(100);
    expect((await client.request('goals.list'))['result']).toEqual([]);
    expect(serverWs.readyState).toBe(serverWs.OPEN);
    expect(connection.stats().rateLimited).toBe(4);
    // One warn line for the stretch, then one at close with what was refused since.
    expect(records.filter((r) => r.msg?.includes('rate limit'))).toEqual([
      expect.objectContaining({ level: LEVELS.warn, refused: 1, limitPerSecond: 10, burst: 20 }),
    ]);
    const closed = serverClosed(serverWs);
    await client.close();
    await closed;
    expect(records.filter((r) => r.msg === 'gateway connection over its rate limit closed')).toEqual([
      expect.objectContaining({ level: LEVELS.warn, refused: 3, refusedInAll: 4 }),
    ]);
  });

  it('logs a refusal again only once RATE_LIMIT_LOG_EVERY_MS of the clock has passed, with the count since', async () => {
    const { h, client, records } = await start({ limits: { rateLimit: { perSecond: 1, burst: 1 } } });
    const flood = async (n: number) =>
      client.exchange(Array.from({ length: n }, (_, i) => request('heartbeat.status', i)));
    await flood(3); // 1 served, 2 refused: the first refusal is logged
    h.clock.increment(RATE_LIMIT_LOG_EVERY_MS - 1_500);
    await flood(12); // the bucket refilled to its burst of 1: 1 served, 11 refused, none logged: the interval has not passed
    h.clock.increment(1_500);
    await flood(2); // 1 served, 1 refused: a line with the 13 refused since the first line
    expect(records.filter((r) => r.msg?.includes('rate limit')).map((r) => r['refused'])).toEqual([1, 13]);
  });

  it('subscribes, sends the answer before any event, delivers live events, and stops after unsubscribe', async () => {
    const { h, client, connection } = await start();
    await h.advance(2000);
    // With `after: 0` the journal is replayed at once: its first event must still follow the answer.
    const replayed = await client.request('events.subscribe', { types: ['heartbeat.beat'], after: 0 });
    const { subscription } = replayed['result'] as { subscription: string; after: number };
    expect(replayed['result']).toEqual({ subscription: expect.stringMatching(/^sub-/), after: 0 });
    await client.waitFor((f) => f.method === 'events.event', 'a replayed event');
    const firstEvent = client.frames.findIndex((f) => (f as Frame).method === 'events.event');
    expect(firstEvent).toBeGreaterThan(client.frames.indexOf(replayed));
    expect(Object.keys(connection.stats().subscriptions)).toEqual([subscription]);

    await h.advance(1000);
    const live = await client.waitFor(
      (f) => f.method === 'events.event' && (f.params!['event'] as { beatCount: number }).beatCount === 3,
      'the live beat 3',
    );
    expect(live['params']).toMatchObject({ subscription, event: { type: 'heartbeat.beat', beatCount: 3 } });

    expect((await client.request('events.unsubscribe', { subscription }))['result']).toBe(true);
    const received = client.notifications('events.event').length;
    await h.advance(2000);
    await client.request('heartbeat.status'); // anything written before this answer has arrived
    expect(client.notifications('events.event')).toHaveLength(received);
    expect(connection.stats().subscriptions).toEqual({});
    expect((await client.request('events.unsubscribe', { subscription }))['error']).toMatchObject({
      code: -32004,
      data: { vigilCode: 'SUBSCRIPTION_NOT_FOUND', subscription },
    });
  });

  it('refuses a subscription past maxSubscriptions with -32009 SUBSCRIPTION_LIMIT', async () => {
    const { client } = await start({ limits: { maxSubscriptions: 2 } });
    await client.request('events.subscribe');
    await client.request('events.subscribe');
    expect((await client.request('events.subscribe'))['error']).toMatchObject({
      code: -32009,
      data: { vigilCode: 'SUBSCRIPTION_LIMIT', limit: 2 },
    });
  });

  it('ends every subscription when the socket closes, leaving no observer on the bus', async () => {
    const { h, client, connection, serverWs, busObservers } = await start();
    const before = busObservers();
    await client.request('events.subscribe');
    await client.request('events.subscribe', { types: ['checkpoint.*'], after: 0 });
    expect(busObservers()).toBe(before + 2);
    const closed = serverClosed(serverWs);
    client.ws.terminate();
    await closed;
    expect(busObservers()).toBe(before);
    expect(connection.stats().subscriptions).toEqual({});
    // The runtime goes on beating, and nothing is written to the closed socket.
    const beats = h.runtime.status().beatCount;
    await h.advance(2000);
    expect(h.runtime.status().beatCount).toBeGreaterThan(beats);
  });

  it('stops reading at maxInFlight unanswered frames and answers the held ones, in order, once they complete', async () => {
    const gate = deferred();
    let started = 0;
    const { client, connection, serverWs } = await start({
      limits: { maxInFlight: 4 },
      handlers: {
        'memory.list': async () => {
          started += 1;
          await gate.promise;
          return [];
        },
      },
    });
    for (let i = 0; i < 10; i += 1) client.send(request('memory.list', i));
    await turnsUntil(
      () => connection.stats().inFlight === 4 && serverWs.isPaused,
      'four frames in flight and reading paused',
    );
    expect(started).toBe(4);
    expect(client.frames).toEqual([]);

    gate.resolve();
    await client.waitFor((f) => f.id === 9, 'the tenth answer');
    expect(client.frames.map((f) => (f as Frame).id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(started).toBe(10);
    await turnsUntil(() => !serverWs.isPaused, 'reading resumed');
    expect(connection.stats().inFlight).toBe(0);
  });
});
