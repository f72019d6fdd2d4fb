/** Every error a real gateway answers carries Vigil's string code in `data.vigilCode`, beside the data clients already read. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RpcError } from '../../src/client/rpc-error.js';
import { connect } from '../../src/client/vigil-client.js';
import { SUBLEVELS } from '../../src/subsystems/store/vigil-db.js';
import { startGatewayHarness, TEST_TOKEN, type Frame, type GatewayHarness, type RawClient } from './gateway.fixture.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await h?.close();
  h = undefined;
});

async function start(
  gateway: Parameters<typeof startGatewayHarness>[0] = {},
): Promise<{ harness: GatewayHarness; client: RawClient }> {
  h = await startGatewayHarness(gateway);
  return { harness: h, client: await h.connect() };
}

/** The error object of the response to one request (failing the test if it succeeded). */
async function errorOf(client: RawClient, method: string, params?: unknown): Promise<Record<string, any>> {
  const response = await client.request(method, params);
  expect(response, `${method} should fail`).not.toHaveProperty('result');
  return response['error'] as Record<string, any>;
}

/** Takes a checkpoint through the gateway, advancing simulated time until it is stored. */
async function checkpoint(harness: GatewayHarness, client: RawClient): Promise<{ id: string; beatCount: number }> {
  return (await harness.until(client.request('checkpoint.create')))['result'] as never;
}

describe('gateway error codes', () => {
  it('keeps -32001 {id, beatCount, createdAt} and adds vigilCode CHECKPOINT_CONFIRMATION_REQUIRED', async () => {
    const { harness, client } = await start();
    const saved = await checkpoint(harness, client);
    const error = await errorOf(client, 'checkpoint.restore', { id: saved.id });
    expect(error).toEqual({
      code: -32001,
      message: expect.stringContaining(saved.id),
      data: {
        id: saved.id,
        beatCount: saved.beatCount,
        createdAt: expect.any(String),
        vigilCode: 'CHECKPOINT_CONFIRMATION_REQUIRED',
      },
    });
  });

  it('answers bad params with -32602, the zod issues in data, each with vigilCode RPC_INVALID_PARAMS', async () => {
    const { client } = await start();
    expect(await errorOf(client, 'goals.add', { title: 42 })).toMatchObject({
      code: -32602,
      data: [expect.objectContaining({ path: ['title'], code: 'invalid_type', vigilCode: 'RPC_INVALID_PARAMS' })],
    });
    expect(await errorOf(client, 'goals.add', ['by position'])).toMatchObject({
      code: -32602,
      data: [expect.objectContaining({ path: [], vigilCode: 'RPC_INVALID_PARAMS' })],
    });
  });

  it('tells apart the three -32004 not-founds by vigilCode', async () => {
    const { client } = await start();
    expect(await errorOf(client, 'checkpoint.get', { id: 'ck-nope' })).toMatchObject({
      code: -32004,
      data: { id: 'ck-nope', vigilCode: 'CHECKPOINT_NOT_FOUND' },
    });
    expect(await errorOf(client, 'goals.complete', { id: 'g-nope' })).toMatchObject({
      code: -32004,
      data: { id: 'g-nope', vigilCode: 'GOAL_NOT_FOUND' },
    });
    expect(await errorOf(client, 'events.unsubscribe', { subscription: 'sub-nope' })).toMatchObject({
      code: -32004,
      data: { subscription: 'sub-nope', vigilCode: 'SUBSCRIPTION_NOT_FOUND' },
    });
  });

  it('answers a corrupt checkpoint with -32005 and vigilCode CHECKPOINT_CORRUPT', async () => {
    const { harness, client } = await start();
    const { id } = await checkpoint(harness, client);
    const bodies = harness.db.sublevel<string, Uint8Array>(SUBLEVELS.checkpointBodies, { valueEncoding: 'view' });
    await bodies.put(id, new TextEncoder().encode('not gzip'));
    expect(await errorOf(client, 'checkpoint.get', { id })).toMatchObject({
      code: -32005,
      data: { vigilCode: 'CHECKPOINT_CORRUPT' },
    });
  });

  it('answers a second restore while one runs with -32009 and vigilCode CHECKPOINT_RESTORE_BUSY', async () => {
    const { harness, client } = await start();
    const { id } = await checkpoint(harness, client);
    const batch = [1, 2].map((n) => ({
      jsonrpc: '2.0',
      method: 'checkpoint.restore',
      params: { id, confirm: true },
      id: n,
    }));
    const [first, second] = (await harness.until(client.exchange(batch))) as Frame[];
    expect(first).toMatchObject({ id: 1, result: { restored: id } });
    expect(second).toMatchObject({ id: 2, error: { code: -32009, data: { vigilCode: 'CHECKPOINT_RESTORE_BUSY' } } });
  });

  it('answers a subscription past the limit with -32009 and vigilCode SUBSCRIPTION_LIMIT', async () => {
    const { client } = await start({ gateway: { maxSubscriptions: 1 } });
    await client.request('events.subscribe');
    expect(await errorOf(client, 'events.subscribe')).toMatchObject({
      code: -32009,
      data: { vigilCode: 'SUBSCRIPTION_LIMIT', limit: 1 },
    });
  });

  it('answers a request over the rate limit with -32029 and vigilCode RPC_RATE_LIMITED', async () => {
    const { client } = await start({ gateway: { rpcRateLimit: 1, rpcRateBurst: 1 } });
    expect((await client.request('heartbeat.status'))['result']).toBeDefined();
    expect(await errorOf(client, 'heartbeat.status')).toMatchObject({
      code: -32029,
      data: { vigilCode: 'RPC_RATE_LIMITED', limitPerSecond: 1, burst: 1, retryAfterMs: 1000 },
    });
  });

  it('answers an unexpected throw with -32603 Internal error and vigilCode INTERNAL, leaking nothing', async () => {
    const { harness, client } = await start();
    vi.spyOn(harness.runtime, 'listGoals').mockImplementation(() => {
      throw new TypeError('secret detail of a bug');
    });
    expect(await errorOf(client, 'goals.list')).toEqual({
      code: -32603,
      message: 'Internal error',
      data: { vigilCode: 'INTERNAL' },
    });
  });

  it('answers a stopped runtime with -32603 and vigilCode RUNTIME_STOPPED', async () => {
    const { harness, client } = await start();
    await harness.runtime.stop();
    expect(await errorOf(client, 'goals.add', { title: 'too late' })).toMatchObject({
      code: -32603,
      data: { vigilCode: 'RUNTIME_STOPPED' },
    });
  });

  it('sends the bare protocol faults exactly as the specification writes them, and vigilCode beside a detail', async () => {
    const { client } = await start();
    expect(await errorOf(client, 'no.such.method')).toEqual({ code: -32601, message: 'Method not found' });
    expect(await client.exchange('[]')).toMatchObject({ error: { code: -32600, message: 'Invalid Request' } });
    expect(await client.exchange('[]')).not.toHaveProperty('error.data');
    expect(await client.exchange('['.repeat(200))).toMatchObject({
      error: {
        code: -32600,
        data: { reason: expect.stringContaining('nests deeper'), vigilCode: 'RPC_INVALID_REQUEST' },
      },
    });
  });

  it('answers a misspelt method with -32601 suggesting the catalogue names nearest it in data', async () => {
    const { client } = await start();
    expect(await errorOf(client, 'agent.sned', { text: 'hi' })).toEqual({
      code: -32601,
      message: 'Method not found',
      data: { suggestions: ['agent.send'], vigilCode: 'RPC_METHOD_NOT_FOUND' },
    });
    expect(await errorOf(client, 'send')).toMatchObject({ data: { suggestions: ['agent.send'] } });
  });

  it('reaches the typed client as RpcError.vigilCode', async () => {
    const { harness } = await start();
    const typed = await connect({ url: harness.gateway.url, token: TEST_TOKEN, reconnect: false });
    try {
      const notFound = await typed.goals.complete({ id: 'g-nope' }).catch((err: unknown) => err);
      expect(notFound).toBeInstanceOf(RpcError);
      expect(notFound).toMatchObject({ code: -32004, vigilCode: 'GOAL_NOT_FOUND' });
      const unknown = await typed.call('no.such.method' as never).catch((err: unknown) => err);
      expect(unknown).toMatchObject({ code: -32601, vigilCode: 'RPC_METHOD_NOT_FOUND' });
    } finally {
      await typed.close();
    }
  });
});
