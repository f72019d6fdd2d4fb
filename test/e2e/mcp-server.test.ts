/** `vigil mcp`: Vigil as an MCP server over stdio, driven by the MCP SDK's client and by the MCP Inspector's CLI. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import { readTokenFile } from '../../src/shared/token-file.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';
import { ROOT, runProcess } from './run-process.js';

const BIN = join(ROOT, 'bin/vigil.js');
const INSPECTOR = join(ROOT, 'node_modules/.bin/mcp-inspector');

let dir: string;
let daemon: DaemonProcess;
let url: string;
let rpc: VigilClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-mcp-'));
  daemon = startDaemon(['run', '--data-dir', dir, '--port', '0'], FAST_ENV);
  url = (await daemon.waitFor((line) => line.msg === 'gateway listening')).url as string;
  rpc = await connect({ url, token: (await readTokenFile(dir))! });
});

afterAll(async () => {
  await rpc?.close();
  daemon?.kill('SIGTERM');
  await daemon?.exited;
  await rm(dir, { recursive: true, force: true });
});

/** An SDK client on `vigil mcp` with `args`. */
async function mcpClient(args: string[]): Promise<Client> {
  const client = new Client({ name: 'vitest', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', ...args],
      env: { PATH: process.env.PATH ?? '' },
    }),
  );
  return client;
}

const textOf = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text;

describe('vigil mcp (stdio, the SDK client)', () => {
  it('lists the tools, relays a message and answers with the reply, finds a kept fact, and reports the status', async () => {
    const client = await mcpClient(['--data-dir', dir, '--url', url]);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(
        [
          'add_goal',
          'get_conversation',
          'get_reply',
          'get_status',
          'list_goals',
          'search_memory',
          'send_message',
        ].sort(),
      );
      expect(tools.map((tool) => tool.name)).not.toContain('approve');

      const reply = await client.callTool({ name: 'send_message', arguments: { text: 'hello there' } });
      expect(reply.isError).toBeFalsy();
      expect(textOf(reply)).toMatch(/Hello mcp:vitest/);

      const kept = await client.callTool({
        name: 'send_message',
        arguments: { text: 'remember that the locker code is 4512' },
      });
      expect(textOf(kept)).toMatch(/remember/i);
      const found = await client.callTool({ name: 'search_memory', arguments: { query: 'locker code' } });
      expect(found.isError).toBeFalsy();
      expect(textOf(found)).toContain('4512');

      const conversation = await client.callTool({ name: 'get_conversation', arguments: { limit: 4 } });
      expect(textOf(conversation)).toContain('user (mcp:vitest)');

      const status = await client.callTool({ name: 'get_status', arguments: {} });
      const summary = JSON.parse(textOf(status)) as { heartbeat: Record<string, unknown>; budget: { state: string } };
      const heartbeat = await rpc.heartbeat.status();
      expect(summary.heartbeat).toMatchObject({
        startedAt: heartbeat.startedAt,
        thinker: heartbeat.thinker,
        version: heartbeat.version,
        state: heartbeat.state,
      });
      expect(summary.budget.state).toBe((await rpc.budget.status()).state);

      const added = await client.callTool({ name: 'add_goal', arguments: { title: 'Sort the inbox', priority: 7 } });
      expect(textOf(added)).toContain('Sort the inbox');
      expect(textOf(await client.callTool({ name: 'list_goals', arguments: {} }))).toContain('Sort the inbox');

      const unknown = await client.callTool({ name: 'get_reply', arguments: { turnId: 'no-such-turn' } });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toMatch(/Unknown turn/);
    } finally {
      await client.close();
    }
  });

  it('gives an isError result naming the cause when the daemon is down, and keeps serving', async () => {
    // Nothing listens on port 9.
    const client = await mcpClient(['--url', 'http://127.0.0.1:9', '--token', 't']);
    try {
      const result = await client.callTool({ name: 'send_message', arguments: { text: 'anyone there?' } });
      expect(result.isError).toBe(true);
      // The sentence `vigil status --url …` prints: nothing answers there, the URL came from --url, what to check.
      expect(textOf(result)).toMatch(
        /^vigil mcp: No connection to the gateway at \S+127\.0\.0\.1:9\b.* \(from --url\)\. /,
      );
      expect(textOf(result)).toContain('Is the daemon running there? Check the URL, or drop --url');
      const again = await client.callTool({ name: 'get_status', arguments: {} });
      expect(again.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe("/mcp on the daemon's gateway (Streamable HTTP, the SDK client)", () => {
  it('lists the tools and relays a message with the token; refuses without it', async () => {
    const token = (await readTokenFile(dir))!;
    const client = new Client({ name: 'vitest-http', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('send_message');
      const reply = await client.callTool({ name: 'send_message', arguments: { text: 'hello over http' } });
      expect(reply.isError).toBeFalsy();
      expect(textOf(reply)).toMatch(/Hello mcp:vitest-http/);
    } finally {
      await client.close();
    }
    const refused = await fetch(`${url}/mcp`, { method: 'POST', body: '{}' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('vigil mcp (the MCP Inspector CLI, a client nobody here wrote)', () => {
  const inspect = (args: string[]) =>
    runProcess(INSPECTOR, ['--cli', process.execPath, BIN, 'mcp', '--data-dir', dir, '--url', url, ...args], {
      timeoutMs: 60_000,
    });

  it('lists the tools and calls send_message', async () => {
    const listed = await inspect(['--method', 'tools/list']);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toContain(
      'send_message',
    );
    const called = await inspect(['--method', 'tools/call', '--tool-name', 'send_message', '--tool-arg', 'text=hello']);
    expect(called.code).toBe(0);
    expect(textOf(JSON.parse(called.stdout))).toMatch(/^Hello mcp:/);
  });
});
