/** The MCP server's tool list: exactly the tools it is given, each calling only the RPC methods its table names. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { mcpCommand } from '../../src/client/commands/mcp.command.js';
import type { CliIo } from '../../src/client/commands/cli-io.js';
import type { VigilLink } from '../../src/client/mcp/vigil-link.js';
import { createVigilMcpServer } from '../../src/client/mcp/vigil-mcp-server.js';
import { MCP_TOOL_METHODS } from '../../src/protocol/mcp-server-tools.js';
import { DEFAULT_MCP_TOOLS, MCP_TOOL_NAMES, type McpToolName } from '../../src/protocol/mcp-tool-names.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';

const AT = '2026-01-01T00:00:00.000Z';

/** A link answering every method the tools use with a plausible result, recording what was called. */
function recordingLink(called: string[]): VigilLink {
  const results: Record<string, unknown> = {
    'events.history': [],
    'budget.status': { state: 'ok', resetsAt: AT },
    'agent.send': { turnId: 't1' },
    'conversation.list': [],
    'heartbeat.status': { beatCount: 1 },
    'goals.list': [],
    'memory.search': [],
    'goals.add': { id: 'g1', title: 'x', priority: 5, progress: 0, status: 'active' },
  };
  return {
    call: (method) => {
      called.push(method);
      return Promise.resolve(results[method] as never);
    },
    subscribe: () => {
      called.push('events.subscribe');
      return of({ type: 'agent.reply', turnId: 't1', text: 'hi', seq: 1, at: AT } as unknown as VigilEvent);
    },
  };
}

async function connected(link: VigilLink, tools?: readonly McpToolName[]): Promise<Client> {
  const server = createVigilMcpServer({
    openLink: () => Promise.resolve(link),
    where: 'test',
    ...(tools === undefined ? {} : { tools }),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'vitest', version: '1' });
  await client.connect(clientSide);
  return client;
}

const ARGUMENTS: Record<McpToolName, Record<string, unknown>> = {
  send_message: { text: 'hello', waitMs: 1000 },
  get_reply: { turnId: 't1' },
  get_status: {},
  get_conversation: {},
  search_memory: { query: 'x' },
  list_goals: {},
  add_goal: { title: 'x' },
};

describe('createVigilMcpServer', () => {
  it('offers the default tools when given none, and exactly the tools it is given otherwise', async () => {
    const all = await connected(recordingLink([]));
    expect((await all.listTools()).tools.map((tool) => tool.name)).toEqual([...DEFAULT_MCP_TOOLS]);
    const two = await connected(recordingLink([]), ['search_memory', 'get_status']);
    expect((await two.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['get_status', 'search_memory']);
    const refused = await two.callTool({ name: 'send_message', arguments: { text: 'hi' } });
    expect(refused.isError).toBe(true);
  });

  it.each(MCP_TOOL_NAMES)('%s calls only the RPC methods MCP_TOOL_METHODS names for it', async (name) => {
    const called: string[] = [];
    const client = await connected(recordingLink(called));
    await client.callTool({ name, arguments: ARGUMENTS[name] });
    expect(called.length).toBeGreaterThan(0);
    expect(called.filter((method) => !MCP_TOOL_METHODS[name].includes(method as never))).toEqual([]);
  });
});

describe('vigil mcp: VIGIL_MCP_SERVER_TOOLS', () => {
  it('exits 2 naming the variable and the tool when it names an unknown tool', async () => {
    let stderr = '';
    const io = {
      env: { VIGIL_MCP_SERVER_TOOLS: 'get_status,approve' },
      stderr: (text: string) => (stderr += text),
      stdout: () => undefined,
    } as unknown as CliIo;
    expect(await mcpCommand(['--url', 'http://127.0.0.1:9', '--token', 't'], io)).toBe(2);
    expect(stderr).toMatch(/^vigil: VIGIL_MCP_SERVER_TOOLS="get_status,approve" is invalid: unknown tool "approve"/);
  });
});
