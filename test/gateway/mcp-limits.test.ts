/** `/mcp`'s limits on a real gateway: the nesting guard and the size limit of `/rpc`, and sessions capped per token. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_FRAME_DEPTH } from '../../src/gateway/frame-depth.js';
import { MAX_MCP_SESSIONS, MAX_MCP_SESSIONS_PER_TOKEN } from '../../src/gateway/mcp-route.js';
import { MAX_FRAME_BYTES } from '../../src/protocol/limits.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from './gateway.fixture.js';

let h: GatewayHarness | undefined;
const clients: Client[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await h?.close();
  h = undefined;
});

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

function post(harness: GatewayHarness, body: string, token: string, headers: Record<string, string> = {}) {
  return fetch(`${harness.gateway.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      ...headers,
    },
    body,
  });
}

async function mcpClient(harness: GatewayHarness, token: string): Promise<Client> {
  const client = new Client({ name: 'vitest', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${harness.gateway.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

describe('/mcp bodies', () => {
  it('refuses five 1 MB bodies nested 500,000 deep with 400 and -32600, unparsed, while /healthz answers', async () => {
    h = await startGatewayHarness();
    const harness = h;
    const parse = vi.spyOn(JSON, 'parse');
    const depth = 500_000;
    const nested = '['.repeat(depth) + ']'.repeat(depth);
    expect(Buffer.byteLength(nested)).toBeLessThan(MAX_FRAME_BYTES);
    const opened = (await post(harness, INITIALIZE, TEST_TOKEN)).headers.get('mcp-session-id')!;
    const started = performance.now();
    // Before a session and within one, the five at once, /healthz asked in the middle of them.
    const answers = Array.from({ length: 5 }, (_, i) =>
      post(harness, nested, TEST_TOKEN, i % 2 === 0 ? {} : { 'mcp-session-id': opened }),
    );
    const health = fetch(`${harness.gateway.url}/healthz`).then((res) => res.status);
    for (const res of await Promise.all(answers)) {
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32600,
          message: 'Invalid Request',
          data: { reason: `the body nests deeper than ${MAX_FRAME_DEPTH} levels`, vigilCode: 'RPC_INVALID_REQUEST' },
        },
        id: null,
      });
    }
    expect(await health).toBe(200);
    // Unparsed: no JSON.parse call saw anything near the body's size (it would hold the loop for 150–400 ms).
    expect(parse.mock.calls.filter(([text]) => typeof text === 'string' && text.length > 100_000)).toEqual([]);
    // Generous for a loaded machine: unguarded, the five parses alone took up to 1.6 s of the loop.
    expect(performance.now() - started).toBeLessThan(1500);
    // The session is untouched and nothing was opened by the ones without one.
    expect(harness.gateway.stats().mcpSessions).toBe(1);
  });

  it('takes a body nested exactly as deep as a frame may be as JSON (the transport then judges it)', async () => {
    h = await startGatewayHarness();
    const deep = '['.repeat(MAX_FRAME_DEPTH) + ']'.repeat(MAX_FRAME_DEPTH);
    const res = await post(h, deep, TEST_TOKEN);
    // Parsed and handed to the SDK, which refuses an array of arrays as no JSON-RPC message: not our -32600 reason.
    expect(res.status).not.toBe(413);
    expect(JSON.stringify(await res.json())).not.toContain('nests deeper');
  });

  it('refuses a body over 1 MiB with 413 by its Content-Length and by its bytes alike, and opens no session', async () => {
    h = await startGatewayHarness();
    const oversized = `"${'x'.repeat(MAX_FRAME_BYTES)}"`;
    const told = await post(h, oversized, TEST_TOKEN);
    expect(told.status).toBe(413);
    expect(await told.json()).toMatchObject({ error: { code: -32000, message: expect.stringMatching(/Too Large/) } });
    // Chunked, with no Content-Length: counted as it arrives.
    const chunks = [oversized.slice(0, MAX_FRAME_BYTES / 2), oversized.slice(MAX_FRAME_BYTES / 2)];
    const streamed = await fetch(`${h.gateway.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${TEST_TOKEN}`,
      },
      body: new ReadableStream({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
          controller.close();
        },
      }),
      duplex: 'half',
    });
    expect(streamed.status).toBe(413);
    expect(h.gateway.stats().mcpSessions).toBe(0);
    expect((await post(h, INITIALIZE, TEST_TOKEN)).status).toBe(200);
  });
});

describe('/mcp sessions', () => {
  it(`keeps an operator's session while a read token initialises 70 times: the read token holds ${MAX_MCP_SESSIONS_PER_TOKEN}, its own oldest go`, async () => {
    h = await startGatewayHarness();
    const harness = h;
    const operator = await mcpClient(harness, TEST_TOKEN);
    const readToken = (await harness.runtime.tokens.create({ scope: 'read', name: 'reader' })).token;
    const readSessions: string[] = [];
    for (let i = 0; i < 70; i += 1) {
      const res = await post(harness, INITIALIZE, readToken);
      expect(res.status).toBe(200);
      readSessions.push(res.headers.get('mcp-session-id')!);
    }
    expect(harness.gateway.stats().mcpSessions).toBe(1 + MAX_MCP_SESSIONS_PER_TOKEN);
    // The operator's session works on.
    expect((await operator.listTools()).tools.length).toBe(7);
    // The read token's newest session works; its oldest was pushed out by its own.
    const listTools = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const session = (id: string) => ({ 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' });
    expect((await post(harness, listTools, readToken, session(readSessions.at(-1)!))).status).toBe(200);
    expect((await post(harness, listTools, readToken, session(readSessions[0]!))).status).toBe(404);
  });

  it('refuses a new token with 503 when the gateway is full of other tokens sessions, and never evicts theirs', async () => {
    h = await startGatewayHarness();
    const harness = h;
    const operator = await mcpClient(harness, TEST_TOKEN);
    // Three more tokens, each at its share, fill the gateway (with the operator's one) to one short of the whole.
    for (let t = 0; t < 3; t += 1) {
      const token = (await harness.runtime.tokens.create({ scope: 'read', name: `reader-${t}` })).token;
      for (let i = 0; i < MAX_MCP_SESSIONS_PER_TOKEN; i += 1)
        expect((await post(harness, INITIALIZE, token)).status).toBe(200);
    }
    const last = (await harness.runtime.tokens.create({ scope: 'read', name: 'last' })).token;
    for (let i = 0; i < MAX_MCP_SESSIONS_PER_TOKEN - 1; i += 1)
      expect((await post(harness, INITIALIZE, last)).status).toBe(200);
    expect(harness.gateway.stats().mcpSessions).toBe(MAX_MCP_SESSIONS);
    const late = (await harness.runtime.tokens.create({ scope: 'read', name: 'late' })).token;
    const refused = await post(harness, INITIALIZE, late);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.json()).toMatchObject({ error: { code: -32000, message: expect.stringMatching(/64 MCP/) } });
    // A token that holds one gives up its own oldest instead.
    expect((await post(harness, INITIALIZE, last)).status).toBe(200);
    expect(harness.gateway.stats().mcpSessions).toBe(MAX_MCP_SESSIONS);
    expect((await operator.listTools()).tools.length).toBe(7);
  });
});
