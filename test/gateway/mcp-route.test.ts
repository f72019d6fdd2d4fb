/** `/mcp`: the MCP server over Streamable HTTP on a real gateway, driven by the MCP SDK's own client. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_FRAME_BYTES } from '../../src/protocol/limits.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from './gateway.fixture.js';

const harnesses: GatewayHarness[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  for (const h of harnesses.splice(0)) await h.close();
});

async function gateway(options: Parameters<typeof startGatewayHarness>[0] = {}): Promise<GatewayHarness> {
  const h = await startGatewayHarness(options);
  harnesses.push(h);
  return h;
}

/** An SDK client on `h`'s `/mcp` with `token` (the test token by default). */
async function mcpClient(h: GatewayHarness, token = TEST_TOKEN): Promise<Client> {
  const client = new Client({ name: 'vitest', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${h.gateway.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const textOf = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text;

/** A raw POST to `/mcp`. */
function post(h: GatewayHarness, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${h.gateway.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('/mcp (Streamable HTTP, the SDK client)', () => {
  it('lists the tools and answers send_message with the agent reply, as a normal turn from mcp:<client>', async () => {
    const h = await gateway();
    const client = await mcpClient(h);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'send_message',
      'get_reply',
      'get_status',
      'get_conversation',
      'search_memory',
      'list_goals',
      'add_goal',
    ]);
    const reply = await h.until(client.callTool({ name: 'send_message', arguments: { text: 'hello there' } }));
    expect(reply.isError).toBeFalsy();
    expect(textOf(reply)).toMatch(/Hello mcp:vitest/);
    // The conversation log holds it as any user's message, from mcp:<the host's client name>, with one ending.
    const rpc = await h.connect();
    const entries = (await rpc.request('conversation.list', { limit: 2 })).result as Array<{
      role: string;
      from?: string;
      turnId?: string;
    }>;
    expect(entries[0]).toMatchObject({ role: 'user', from: 'mcp:vitest', text: 'hello there' });
    const turnId = entries[0]!.turnId;
    const endings = h.events.filter(
      (event) =>
        (event.type === 'agent.reply' || event.type === 'agent.unanswered') &&
        (event as { turnId?: string }).turnId === turnId,
    );
    expect(endings).toHaveLength(1);
    expect(h.gateway.stats().mcpSessions).toBe(1);
  });

  it('finds a remembered fact with search_memory, and get_status matches heartbeat.status', async () => {
    const h = await gateway();
    const client = await mcpClient(h);
    await h.until(
      client.callTool({ name: 'send_message', arguments: { text: 'remember that the locker code is 4512' } }),
    );
    const found = await h.until(client.callTool({ name: 'search_memory', arguments: { query: 'locker code' } }));
    expect(found.isError).toBeFalsy();
    expect(textOf(found)).toContain('4512');
    // The memory the model kept and the message it was said in, each saying which it is and when.
    expect(textOf(found)).toMatch(/^- \[memory\] "[^\n]*4512[^\n]*" \(id mem-\d+, from \w+, kept \S+Z, score /m);
    expect(textOf(found)).toMatch(
      /^- \[conversation\] "remember that the locker code is 4512" \(seq \d+, user \S+, said \S+Z, score /m,
    );

    const status = await client.callTool({ name: 'get_status', arguments: {} });
    const summary = JSON.parse(textOf(status)) as { heartbeat: Record<string, unknown> };
    const rpc = await h.connect();
    const heartbeat = (await rpc.request('heartbeat.status')).result as Record<string, unknown>;
    expect(summary.heartbeat).toMatchObject({
      startedAt: heartbeat.startedAt,
      state: heartbeat.state,
      beatCount: heartbeat.beatCount,
    });
  });

  it('refuses /mcp without the token and with a wrong one: 401 with WWW-Authenticate: Bearer', async () => {
    const h = await gateway();
    for (const headers of [
      {} as Record<string, string>,
      { authorization: `Bearer ${TEST_TOKEN}x` },
      { authorization: 'Bearer short' },
    ]) {
      const res = await post(h, INITIALIZE, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
    await expect(mcpClient(h, 'wrong-token')).rejects.toThrow(/401|nauthorized/);
    expect(h.gateway.stats().mcpSessions).toBe(0);
  });

  it('refuses a body over the WebSocket frame limit with 413 and opens no session', async () => {
    const h = await gateway();
    const padding = 'x'.repeat(MAX_FRAME_BYTES + 1);
    const oversized = INITIALIZE.replace('"name":"raw"', `"name":"${padding}"`);
    const res = await post(h, oversized, { authorization: `Bearer ${TEST_TOKEN}` });
    expect(res.status).toBe(413);
    expect(h.gateway.stats().mcpSessions).toBe(0);
    // Just under it is a message like any other.
    const ok = await post(h, INITIALIZE, { authorization: `Bearer ${TEST_TOKEN}` });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers a body that is not JSON with 400 and -32700, in a session or before one, and opens none', async () => {
    const h = await gateway();
    const auth = { authorization: `Bearer ${TEST_TOKEN}` };
    const before = await post(h, '{"jsonrpc":"2.0",', auth);
    expect(before.status).toBe(400);
    expect(await before.json()).toMatchObject({ error: { code: -32700 } });
    expect(h.gateway.stats().mcpSessions).toBe(0);
    const opened = await post(h, INITIALIZE, auth);
    const session = opened.headers.get('mcp-session-id')!;
    const within = await post(h, 'not json', { ...auth, 'mcp-session-id': session });
    expect(within.status).toBe(400);
    expect(await within.json()).toMatchObject({ error: { code: -32700 } });
    expect(h.gateway.stats().mcpSessions).toBe(1);
  });

  it('answers an unknown session id (a daemon restarted) with 404 Session not found; the host then initialises again', async () => {
    const first = await gateway();
    const { port } = new URL(first.gateway.url);
    const client = await mcpClient(first);
    await client.listTools();
    await first.close();
    harnesses.splice(harnesses.indexOf(first), 1);

    const second = await gateway({ gateway: { port: Number(port) } });
    const refused = await client.listTools().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(StreamableHTTPError);
    expect((refused as StreamableHTTPError).code).toBe(404);
    expect(String(refused)).toContain('Session not found');

    const again = await mcpClient(second);
    expect((await again.listTools()).tools.length).toBe(7);
  });

  it('offers only the tools VIGIL_MCP_SERVER_TOOLS names', async () => {
    const h = await gateway({ gateway: { mcpTools: ['get_status', 'search_memory'] } });
    const client = await mcpClient(h);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['get_status', 'search_memory']);
    const refused = await client.callTool({ name: 'add_goal', arguments: { title: 'not allowed' } });
    expect(refused.isError).toBe(true);
    const rpc = await h.connect();
    expect((await rpc.request('goals.list')).result).toEqual([]);
  });

  it('applies the RPC rate limit to the calls a session makes, as an isError result naming it', async () => {
    const h = await gateway({ gateway: { rpcRateLimit: 1, rpcRateBurst: 3 } });
    const client = await mcpClient(h);
    // get_status makes three calls: the second one finds the bucket empty.
    expect((await client.callTool({ name: 'get_status', arguments: {} })).isError).toBeFalsy();
    const limited = await client.callTool({ name: 'get_status', arguments: {} });
    expect(limited.isError).toBe(true);
    expect(textOf(limited)).toMatch(/RPC_RATE_LIMITED.*VIGIL_RPC_RATE_LIMIT/);
  });
});
