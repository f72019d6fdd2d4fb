import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness, type RawClient } from './gateway.fixture.js';

// JSON-RPC 2.0 specification §7, with its methods mapped onto Vigil's (by-name params only).
let h: GatewayHarness;
let client: RawClient;
beforeEach(async () => {
  h = await startGatewayHarness();
  client = await h.connect();
});
afterEach(() => h.close());

/** Proves nothing was sent for `frame`: the next frame to arrive is the answer to a probe sent after it. */
async function expectNoResponse(frame: string): Promise<void> {
  const before = client.frames.length;
  client.send(frame);
  const probe = await client.request('heartbeat.status');
  expect(client.frames.length).toBe(before + 1);
  expect(client.frames[before]).toBe(probe);
}

describe('JSON-RPC 2.0 specification examples (§7)', () => {
  it('answers a call with named parameters with its result and id', async () => {
    const response = await client.exchange(
      '{"jsonrpc": "2.0", "method": "goals.add", "params": {"title": "Water the plants", "priority": 3}, "id": 3}',
    );
    const [goal] = h.runtime.listGoals();
    expect(response).toEqual({ jsonrpc: '2.0', result: goal, id: 3 });
    expect(goal).toMatchObject({ title: 'Water the plants', priority: 3 });
  });

  it('runs a notification and sends nothing back', async () => {
    await expectNoResponse('{"jsonrpc": "2.0", "method": "goals.add", "params": {"title": "Quietly"}}');
    expect(h.runtime.listGoals().map((g) => g.title)).toEqual(['Quietly']);
  });

  it('answers a non-existent method with -32601', async () => {
    expect(await client.exchange('{"jsonrpc": "2.0", "method": "foobar", "id": "1"}')).toEqual({
      jsonrpc: '2.0',
      error: { code: -32601, message: 'Method not found' },
      id: '1',
    });
  });

  it('answers invalid JSON with -32700 and keeps the connection open', async () => {
    expect(await client.exchange('{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]')).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error' },
      id: null,
    });
    expect((await client.request('heartbeat.status')).result).toMatchObject({ beatCount: expect.any(Number) });
  });

  it('answers an invalid Request object with -32600', async () => {
    expect(await client.exchange('{"jsonrpc": "2.0", "method": 1, "params": "bar"}')).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request' },
      id: null,
    });
  });

  it('answers a batch that is invalid JSON with one -32700', async () => {
    const frame = `[
      {"jsonrpc": "2.0", "method": "heartbeat.status", "id": "1"},
      {"jsonrpc": "2.0", "method"
    ]`;
    expect(await client.exchange(frame)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error' },
      id: null,
    });
  });

  it('answers an empty batch with one -32600, not an array', async () => {
    expect(await client.exchange('[]')).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request' },
      id: null,
    });
  });

  it('answers a batch of one invalid entry with an array of one -32600', async () => {
    expect(await client.exchange('[1]')).toEqual([
      { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' }, id: null },
    ]);
  });

  it('answers a batch of three invalid entries with three -32600', async () => {
    const invalid = { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' }, id: null };
    expect(await client.exchange('[1,2,3]')).toEqual([invalid, invalid, invalid]);
  });

  it('answers a mixed batch: results, an invalid entry, an unknown method, and nothing for the notification', async () => {
    const frame = `[
      {"jsonrpc": "2.0", "method": "heartbeat.status", "id": "1"},
      {"jsonrpc": "2.0", "method": "goals.add", "params": {"title": "hello"}},
      {"jsonrpc": "2.0", "method": "goals.list", "id": "2"},
      {"foo": "boo"},
      {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
      {"jsonrpc": "2.0", "method": "affect.get", "id": "9"}
    ]`;
    const response = (await client.exchange(frame)) as unknown[];
    expect(response).toEqual([
      { jsonrpc: '2.0', result: h.runtime.status(), id: '1' },
      { jsonrpc: '2.0', result: h.runtime.listGoals(), id: '2' },
      { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' }, id: null },
      { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: '5' },
      { jsonrpc: '2.0', result: h.runtime.getAffect(), id: '9' },
    ]);
  });

  it('sends nothing for a batch of notifications only', async () => {
    await expectNoResponse(`[
      {"jsonrpc": "2.0", "method": "goals.add", "params": {"title": "one"}},
      {"jsonrpc": "2.0", "method": "goals.add", "params": {"title": "two"}}
    ]`);
    expect(h.runtime.listGoals()).toHaveLength(2);
  });
});

describe('JSON-RPC framing beyond the examples', () => {
  it('refuses positional params and misspelt names with -32602 carrying the zod issues in data, each with vigilCode', async () => {
    const positional = await client.request('goals.add', ['Water the plants']);
    expect(positional.error).toMatchObject({
      code: -32602,
      data: [expect.objectContaining({ path: [], vigilCode: 'RPC_INVALID_PARAMS' })],
    });
    const misspelt = await client.request('checkpoint.restore', { id: 'ck-1', confirmed: true });
    expect(misspelt.error).toMatchObject({
      code: -32602,
      data: [expect.objectContaining({ code: 'unrecognized_keys', keys: ['confirmed'] })],
    });
    const wrongType = await client.request('goals.add', { title: 42 });
    expect(wrongType.error).toMatchObject({
      code: -32602,
      data: [expect.objectContaining({ path: ['title'], code: 'invalid_type' })],
    });
  });

  it('accepts absent, empty-object and empty-array params for a method without params', async () => {
    for (const params of [undefined, {}, []]) {
      expect((await client.request('memory.list', params)).result).toEqual([]);
    }
  });

  it('refuses a batch of more than 1000 entries with one -32600', async () => {
    const batch = Array.from({ length: 1001 }, (_, i) => ({ jsonrpc: '2.0', method: 'heartbeat.status', id: i }));
    expect(await client.exchange(batch)).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request' },
      id: null,
    });
  });

  it('treats ids as opaque: strings, integers, fractions and null come back as sent; objects are invalid', async () => {
    for (const id of ['abc', 7, 1.5, null, -3]) {
      expect(await client.exchange({ jsonrpc: '2.0', method: 'memory.list', id })).toEqual({
        jsonrpc: '2.0',
        result: [],
        id,
      });
    }
    expect(await client.exchange({ jsonrpc: '2.0', method: 'memory.list', id: { a: 1 } })).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request' },
      id: null,
    });
  });

  it('closes the connection with 1009 for a frame over 1 MiB and keeps serving others', async () => {
    const other = await h.connect();
    client.send(
      JSON.stringify({ jsonrpc: '2.0', method: 'agent.send', params: { text: 'x'.repeat(1024 * 1024) }, id: 1 }),
    );
    expect((await client.closed).code).toBe(1009);
    expect((await other.request('heartbeat.status')).result).toBeDefined();
  });

  it('accepts a frame just under 1 MiB', async () => {
    const text = 'y'.repeat(1024 * 1024 - 200);
    const response = await client.request('goals.add', { title: 'short', extra: text });
    expect(response.error).toMatchObject({ code: -32602 });
  });

  it('closes the connection with 1003 for a binary frame', async () => {
    client.ws.send(Buffer.from('{"jsonrpc":"2.0","method":"heartbeat.status","id":1}'), { binary: true });
    const closed = await client.closed;
    expect(closed.code).toBe(1003);
    expect(closed.reason).toMatch(/binary frames are not supported/);
  });
});
