/**
 * Scoped tokens where clients hold them: an MCP host on `/mcp` or `vigil mcp` is offered only the tools its token's
 * scope allows (from the tools' RPC methods), and `vigil tokens create | list | revoke` / `--token` on the CLI.
 */
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { mcpCommand } from '../../src/client/commands/mcp.command.js';
import { toolsForScope } from '../../src/protocol/mcp-server-tools.js';
import { DEFAULT_MCP_TOOLS } from '../../src/protocol/mcp-tool-names.js';
import { cliIo, MCP_INITIALIZE, mcpPost, TEST_TOKEN } from './gateway.fixture.js';
import { startScopedGateway, type ScopedGateway } from './token-scopes.fixture.js';

let g: ScopedGateway | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await g?.h.close();
  g = undefined;
});

const READ_TOOLS = ['get_reply', 'get_status', 'get_conversation', 'search_memory', 'list_goals'];

async function mcpTools(url: string, token: string): Promise<string[]> {
  const client = new Client({ name: 'vitest', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return (await client.listTools()).tools.map((tool) => tool.name);
}

describe('MCP hosts with scoped tokens', () => {
  it('offers a read token the reading tools only, and a talk or operate token every tool', () => {
    expect(toolsForScope(DEFAULT_MCP_TOOLS, 'read')).toEqual(READ_TOOLS);
    expect(toolsForScope(DEFAULT_MCP_TOOLS, 'talk')).toEqual(DEFAULT_MCP_TOOLS);
    expect(toolsForScope(DEFAULT_MCP_TOOLS, 'operate')).toEqual(DEFAULT_MCP_TOOLS);
  });

  it('lists tools on /mcp by the token’s scope, and keeps a session to the token that opened it', async () => {
    g = await startScopedGateway();
    const { url } = g.h.gateway;
    expect(await mcpTools(url, g.tokens.read)).toEqual(READ_TOOLS);
    expect(await mcpTools(url, g.tokens.talk)).toEqual([...DEFAULT_MCP_TOOLS]);
    // A session opened with the talk token cannot be borrowed by the read token.
    const opened = await mcpPost(url, g.tokens.talk, MCP_INITIALIZE);
    const session = opened.headers.get('mcp-session-id')!;
    await opened.text();
    const borrowed = await mcpPost(url, g.tokens.read, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
    expect(borrowed.status).toBe(403);

    // Revoking the talk token ends its sessions at once; the read token's session stays.
    const sessions = g.h.gateway.stats().mcpSessions;
    await g.h.runtime.tokens.revoke('talk');
    await g.h.settle();
    expect(g.h.gateway.stats().mcpSessions).toBe(sessions - 2);
  });

  it('vigil mcp with a read token offers the host the reading tools only', async () => {
    g = await startScopedGateway();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const io = cliIo(g.h.gateway.url, g.tokens.read);
    const running = mcpCommand(['--url', g.h.gateway.url, '--token', g.tokens.read], io, stdin, stdout);
    const lines: Array<Record<string, unknown>> = [];
    let pending = '';
    const waiters: Array<() => void> = [];
    stdout.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      let end: number;
      while ((end = pending.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(pending.slice(0, end)) as Record<string, unknown>);
        pending = pending.slice(end + 1);
      }
      for (const wake of waiters.splice(0)) wake();
    });
    const answer = async (id: number): Promise<Record<string, unknown>> => {
      for (;;) {
        const found = lines.find((line) => line['id'] === id);
        if (found !== undefined) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    };
    const send = (message: unknown): boolean => stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'stdio-test', version: '1' } },
    });
    await answer(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const listed = (await answer(2))['result'] as { tools: Array<{ name: string }> };
    expect(listed.tools.map((tool) => tool.name)).toEqual(READ_TOOLS);
    stdin.end();
    expect(await running).toBe(0);
  });
});

describe('vigil tokens', () => {
  it('creates (the secret alone on stdout), lists (never a secret) and revokes; --token with it is scoped', async () => {
    g = await startScopedGateway();
    const { url } = g.h.gateway;
    const now = g.h.clock.now();
    const createdAt = new Date(now).toISOString();
    const expiresAt = new Date(now + 30 * 86_400_000).toISOString();
    const create = cliIo(url, TEST_TOKEN);
    expect(
      await main(['tokens', 'create', '--scope', 'read', '--name', 'prometheus', '--expires', '30d'], create),
    ).toBe(0);
    const secret = create.out().trim();
    expect(secret).toMatch(/^vgt_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(create.err()).toContain(`token "prometheus" created, scope read, expires ${expiresAt}.`);

    const list = cliIo(url, TEST_TOKEN);
    expect(await main(['tokens', 'list'], list)).toBe(0);
    expect(list.out()).toContain(`prometheus\tread\tcreated ${createdAt}\texpires ${expiresAt}\tlast used never\n`);
    expect(list.out()).not.toContain(secret.slice(21));

    // The new token reads, and is told what it may not do.
    const reading = cliIo(url, secret);
    expect(await main(['rpc', 'budget.status'], reading)).toBe(0);
    const topUp = cliIo(url, secret);
    expect(await main(['rpc', 'budget.topUp', '{"amountUsd":1}'], topUp)).toBe(1);
    expect(topUp.err()).toContain('"code":-32003');
    expect(topUp.err()).toContain('vigil: this token may not call budget.topUp: it needs a token of scope operate.');
    const escalate = cliIo(url, secret);
    expect(await main(['tokens', 'create', '--scope', 'operate'], escalate)).toBe(1);

    const revoke = cliIo(url, TEST_TOKEN);
    expect(await main(['tokens', 'revoke', 'prometheus'], revoke)).toBe(0);
    expect(revoke.out()).toBe('revoked prometheus\n');
    const after = cliIo(url, secret);
    expect(await main(['rpc', 'budget.status'], after)).toBe(1);
    expect(after.err()).toMatch(/refused the token/);
  });

  it('refuses bad usage with exit 2', async () => {
    const io = cliIo('http://127.0.0.1:9', TEST_TOKEN);
    expect(await main(['tokens', 'create'], io)).toBe(2);
    expect(await main(['tokens', 'create', '--scope', 'root'], io)).toBe(2);
    expect(await main(['tokens', 'revoke'], io)).toBe(2);
    expect(await main(['tokens', 'rotate'], io)).toBe(2);
    expect(io.err()).toContain('tokens create needs --scope read, talk or operate.');
  });
});
