/**
 * The connection caps on a real gateway: WebSockets, SSE streams and `/mcp` exchanges count against
 * `VIGIL_MAX_CONNECTIONS` in all and half of it per token; past either, HTTP 503, counted by reason in `/metrics`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectionCaps, DEFAULT_MAX_CONNECTIONS, perTokenCap } from '../../src/gateway/connection-caps.js';
import { loadConfig } from '../../src/config.js';
import {
  MCP_INITIALIZE,
  mcpPost,
  startGatewayHarness,
  TEST_TOKEN,
  type GatewayHarness,
  type RawClient,
} from './gateway.fixture.js';
import { tryUpgrade } from './ws-upgrade.js';

let h: GatewayHarness | undefined;
const streams: AbortController[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.abort();
  await h?.close();
  h = undefined;
});

/** Opens `/events` with `token`: the status, and (for 200) the stream held open until the test ends. */
async function openStream(harness: GatewayHarness, token: string): Promise<{ status: number; body: string }> {
  const controller = new AbortController();
  streams.push(controller);
  const res = await fetch(`${harness.gateway.url}/events`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  return { status: res.status, body: res.status === 200 ? '' : await res.text() };
}

async function refusals(harness: GatewayHarness): Promise<Record<string, number>> {
  const text = await (
    await fetch(`${harness.gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })
  ).text();
  const counts: Record<string, number> = {};
  for (const [, reason, value] of text.matchAll(/^vigil_gateway_connections_refused_total\{reason="(\w+)"\} (\d+)$/gm))
    counts[reason!] = Number(value);
  return counts;
}

describe('the connection caps', () => {
  it('refuses past half the cap for one token and past the cap in all, WebSocket, SSE and /mcp alike, with 503', async () => {
    h = await startGatewayHarness({ gateway: { maxConnections: 4 } });
    const harness = h;
    const reader = (await harness.runtime.tokens.create({ scope: 'read', name: 'reader' })).token;
    const other = (await harness.runtime.tokens.create({ scope: 'read', name: 'other' })).token;
    const auth = (token: string) => ({ authorization: `Bearer ${token}` });

    // The operator's token: two of four, then its own cap.
    const first: RawClient = await harness.connect();
    await harness.connect();
    expect(await tryUpgrade(harness.rpcUrl, auth(TEST_TOKEN))).toBe(503);
    const sse = await openStream(harness, TEST_TOKEN);
    expect(sse.status).toBe(503);
    expect(JSON.parse(sse.body)).toMatchObject({
      reason: 'token_full',
      error: expect.stringMatching(/half of VIGIL_MAX_CONNECTIONS/),
    });

    // A read token takes the other two (a WebSocket and an SSE stream); the gateway is then full for a third token.
    await harness.connect({ token: reader });
    expect((await openStream(harness, reader)).status).toBe(200);
    expect(await tryUpgrade(harness.rpcUrl, auth(other))).toBe(503);
    expect((await openStream(harness, other)).status).toBe(503);
    const mcp = await fetch(`${harness.gateway.url}/mcp`, {
      method: 'POST',
      headers: { ...auth(other), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(mcp.status).toBe(503);
    expect(await mcp.json()).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32000, message: expect.stringMatching(/holds 4 connections.*VIGIL_MAX_CONNECTIONS/) },
      id: null,
    });
    expect(await refusals(harness)).toEqual({ token_full: 2, gateway_full: 3 });

    // A closed connection gives its slot back: the operator's third opens once the first is gone.
    await first.close();
    await vi.waitFor(async () => expect(await tryUpgrade(harness.rpcUrl, auth(TEST_TOKEN))).toBe(101), {
      timeout: 5000,
      interval: 20,
    });
  });

  it('gives back the slot of an /mcp exchange when it ends, so short POSTs never pile up', async () => {
    h = await startGatewayHarness({ gateway: { maxConnections: 2 } });
    const post = () => mcpPost(h!.gateway.url, TEST_TOKEN, MCP_INITIALIZE);
    for (let i = 0; i < 10; i += 1) expect((await post()).status).toBe(200);
    expect(await refusals(h)).toEqual({});
  });
});

describe('ConnectionCaps', () => {
  it('defaults to 256 in all and 128 a token, half of it (at least one) for any other cap', () => {
    expect(new ConnectionCaps()).toMatchObject({ max: DEFAULT_MAX_CONNECTIONS, perToken: 128 });
    expect([1, 2, 3, 5].map(perTokenCap)).toEqual([1, 1, 2, 3]);
  });

  it('counts per token, the daemon token (null) among them, and releases once however often asked', () => {
    const caps = new ConnectionCaps(4);
    const a = caps.open(null);
    caps.open(null);
    expect(caps.open(null)).toEqual({ kind: 'refused', reason: 'token_full' });
    caps.open('t1');
    caps.open('t1');
    expect(caps.open('t2')).toEqual({ kind: 'refused', reason: 'gateway_full' });
    if (a.kind !== 'opened') throw new Error('opened expected');
    a.release();
    a.release();
    expect(caps.count()).toBe(3);
    expect(caps.open('t2').kind).toBe('opened');
    expect(caps.open('t2')).toEqual({ kind: 'refused', reason: 'gateway_full' });
  });
});

describe('VIGIL_MAX_CONNECTIONS', () => {
  it('defaults to 256 and refuses what is not a whole number from 1 to 100000, naming the variable', () => {
    expect(loadConfig({}).maxConnections).toBe(256);
    expect(loadConfig({ VIGIL_MAX_CONNECTIONS: '8' }).maxConnections).toBe(8);
    for (const value of ['0', '-1', '1.5', 'many', '100001'])
      expect(() => loadConfig({ VIGIL_MAX_CONNECTIONS: value })).toThrow(
        `VIGIL_MAX_CONNECTIONS="${value}" is invalid: expected an integer from 1 to 100000.`,
      );
  });
});
