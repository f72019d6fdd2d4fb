/**
 * `vigil mcp` configured in a host before its daemon ever ran: it keeps serving, says in a tool result what is missing
 * and what to run (the client commands' sentences), and reaches the daemon in the same session once it starts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MCP_TOOLS } from '../../src/protocol/mcp-tool-names.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';
import { ROOT } from './run-process.js';

const BIN = join(ROOT, 'bin/vigil.js');
// A line of a Node stack trace: what a host must never be left with instead of a sentence.
const STACK_FRAME = /^ {4}at /m;

let root: string;
const daemons: DaemonProcess[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'vigil-mcp-before-'));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const daemon of daemons.splice(0)) {
    daemon.kill('SIGKILL');
    await daemon.exited;
  }
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** A `vigil mcp` session as a host starts it: the SDK's client over stdio, its stderr collected. */
async function mcpSession(args: string[]): Promise<{ client: Client; pid: number; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    // VIGIL_PORT: where a client looks when no daemon.json names a live daemon; nothing listens on port 9, so the test
    // does not depend on whether something runs on the default 7420 here.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', VIGIL_PORT: '9' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'vitest', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, pid: transport.pid!, stderr: () => stderr };
}

/** `vigil run` on `dataDir` (port 0), resolved once it listens and has written its daemon.json. */
async function runDaemon(dataDir: string): Promise<DaemonProcess> {
  const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], FAST_ENV);
  daemons.push(daemon);
  await daemon.waitFor((line) => line.msg === 'gateway listening');
  return daemon;
}

/** Stops `daemon` as a user would (SIGTERM, a clean stop that removes its daemon.json). */
async function stopDaemon(daemon: DaemonProcess): Promise<void> {
  daemon.kill('SIGTERM');
  expect(await daemon.exited).toBe(0);
  daemons.splice(daemons.indexOf(daemon), 1);
}

const textOf = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('vigil mcp before the daemon has ever run', () => {
  it('lists its tools, answers get_status with what is missing and what to run, then reaches the daemon once it starts, and again after a restart', async () => {
    const dataDir = join(root, 'never-ran');
    const { client, pid, stderr } = await mcpSession(['--data-dir', dataDir]);

    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([...DEFAULT_MCP_TOOLS]);
    const missing = await client.callTool({ name: 'get_status', arguments: {} });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe(
      `vigil mcp: No token file at ${join(dataDir, 'token')} (is the daemon running with this data dir?). ` +
        `Start it with \`vigil run --data-dir ${dataDir}\`, or give the running daemon's data dir with --data-dir, ` +
        `or its token with --token or VIGIL_TOKEN.`,
    );
    expect(isRunning(pid)).toBe(true);
    expect((await client.listTools()).tools).toHaveLength(DEFAULT_MCP_TOOLS.length);

    const daemon = await runDaemon(dataDir);
    const status = await client.callTool({ name: 'get_status', arguments: {} });
    expect(status.isError, textOf(status)).toBeFalsy();
    expect(JSON.parse(textOf(status))).toMatchObject({ heartbeat: { version: expect.any(String) } });

    await stopDaemon(daemon);
    const stopped = await client.callTool({ name: 'get_status', arguments: {} });
    expect(stopped.isError).toBe(true);
    // Nothing answers, why the address was tried, and what to run.
    expect(textOf(stopped)).toMatch(/^vigil mcp: No connection to the gateway at \S+127\.0\.0\.1:9\b/);
    expect(textOf(stopped)).toContain('(from VIGIL_HOST/VIGIL_PORT)');
    expect(textOf(stopped)).toContain(`start it with \`vigil run --data-dir ${dataDir}\``);
    expect(isRunning(pid)).toBe(true);

    // Started again, on another port (0 again): found by its new daemon.json.
    await runDaemon(dataDir);
    const again = await client.callTool({ name: 'get_status', arguments: {} });
    expect(again.isError, textOf(again)).toBeFalsy();

    expect(stderr()).toContain(`vigil: No token file at ${join(dataDir, 'token')}`);
    expect(stderr()).not.toMatch(STACK_FRAME);
  });

  it('answers a refused token with the sentence a client command prints, and keeps serving', async () => {
    const dataDir = join(root, 'refused');
    await runDaemon(dataDir);
    const { client, pid, stderr } = await mcpSession(['--data-dir', dataDir, '--token', 'not-this-daemons-token']);

    expect((await client.listTools()).tools).toHaveLength(DEFAULT_MCP_TOOLS.length);
    const refused = await client.callTool({ name: 'get_status', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /^vigil mcp: the daemon refused the token \(HTTP 401 from http:\/\/127\.0\.0\.1:\d+\/?\); the token came from --token\. Pass this daemon's token with --token or VIGIL_TOKEN/,
    );
    const twice = await client.callTool({ name: 'list_goals', arguments: {} });
    expect(twice.isError).toBe(true);
    expect(textOf(twice)).toContain('refused the token');
    expect(isRunning(pid)).toBe(true);
    expect(stderr()).not.toMatch(STACK_FRAME);
  });
});
