/** MCP servers under a real daemon: a bad VIGIL_MCP_CONFIG exits 2; servers never delay "gateway listening"; none outlives the daemon, SIGTERM or kill -9. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/vigil-client.js';
import { isAlive, ROOT, STDIO_FIXTURE } from '../subsystems/tools/mcp-hub.fixture.js';
import { startDaemon, type DaemonProcess } from './daemon-process.js';
import type { ToolView } from '../../src/protocol/tools.schema.js';

const dir = mkdtempSync(join(tmpdir(), 'vigil-mcp-e2e-'));
const started: DaemonProcess[] = [];
afterEach(() => {
  for (const daemon of started.splice(0)) daemon.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = 'mcp-e2e-token-0123456789';

/** Writes an MCP config file and returns its path. */
function mcpConfig(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** The parent pid of `pid`, from /proc (the launcher of a server). */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Resolves once none of `pids` runs; fails after `timeoutMs` naming those still there. */
async function allGone(pids: number[], timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isAlive)) {
    if (Date.now() > deadline) throw new Error(`still running: ${pids.filter(isAlive).join(', ')}`);
    // Polling another process's end: there is nothing to wait on, and each round is one /proc read.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The `count` pids a file lists once both servers wrote theirs (the mute one may start a moment after the other is up). */
async function pidsIn(file: string, count: number): Promise<number[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const pids = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map(Number);
    if (pids.length >= count || Date.now() > deadline) return pids;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A daemon with two servers: the stubborn fixture (ignores stdin EOF and SIGTERM) and one that never answers. */
async function daemonWithServers(name: string): Promise<{ daemon: DaemonProcess; url: string; pids: number[] }> {
  const pidFile = join(dir, `${name}.pids`);
  const config = mcpConfig(`${name}.json`, {
    mcpServers: {
      local: {
        command: process.execPath,
        args: ['--import', 'tsx', STDIO_FIXTURE],
        cwd: ROOT,
        env: { FIXTURE_PID_FILE: pidFile, FIXTURE_STUBBORN: '1' },
      },
      // Starts, then never answers the handshake: its connection attempt must not hold up the gateway.
      mute: {
        command: process.execPath,
        args: [
          '-e',
          'require("fs").appendFileSync(process.argv[1], process.pid + "\\n"); setInterval(() => {}, 1000)',
          pidFile,
        ],
      },
    },
  });
  const daemon = startDaemon(['run', '--data-dir', join(dir, `${name}-data`), '--port', '0'], {
    VIGIL_MCP_CONFIG: config,
    VIGIL_TOKEN: TOKEN,
  });
  started.push(daemon);
  const listening = await daemon.waitFor((l) => l.msg === 'gateway listening', 20_000, 'gateway listening');
  await daemon.waitFor((l) => l.msg === 'mcp.server_up' && l['server'] === 'local', 20_000, 'mcp.server_up of local');
  // The mute server is still in its handshake (30 s timeout): it is up to nobody yet, and that held nothing up.
  expect(daemon.lines.some((l) => String(l.msg).startsWith('mcp.') && l['server'] === 'mute')).toBe(false);
  const servers = await pidsIn(pidFile, 2);
  expect(servers).toHaveLength(2);
  const pids = [...servers, ...servers.map(parentOf)];
  expect(pids.every(isAlive)).toBe(true);
  return { daemon, url: String(listening.url), pids };
}

describe('MCP servers under vigil run', () => {
  it.each([
    ['a missing file', () => join(dir, 'absent.json'), /is invalid: expected a readable JSON file/],
    [
      'malformed JSON',
      () => mcpConfig('malformed.json', '{"mcpServers": {"fs": '),
      /is invalid: expected the file to hold JSON/,
    ],
    [
      'a bad field',
      () => mcpConfig('field.json', { mcpServers: { fs: { command: 'x', timeoutMs: -1 } } }),
      /\(problem at mcpServers\.fs\.timeoutMs\)/,
    ],
    [
      'a bad server name',
      () => mcpConfig('name.json', { mcpServers: { 'fs.v2': { command: 'x' } } }),
      /expected a server name .*\(problem at mcpServers\.fs\.v2\)/,
    ],
  ])('exits 2 naming VIGIL_MCP_CONFIG and the path for %s', async (_what, pathOf, message) => {
    const path = pathOf();
    const daemon = startDaemon(['run', '--data-dir', join(dir, 'never'), '--port', '0'], { VIGIL_MCP_CONFIG: path });
    started.push(daemon);
    expect(await daemon.exited).toBe(2);
    expect(daemon.stderr()).toContain(`VIGIL_MCP_CONFIG=${JSON.stringify(path)}`);
    expect(daemon.stderr()).toMatch(message);
  });

  it('serves tools.list while a server is still connecting, and leaves no server process after kill -9', async () => {
    const { daemon, url, pids } = await daemonWithServers('killed');
    const client = await connect({ url, token: TOKEN, reconnect: false });
    const tools = (await client.tools.list()).filter((t): t is ToolView => 'name' in t);
    await client.close();
    expect(tools.map((t) => t.name)).toContain('mcp__local__echo');
    expect(tools.every((t) => t.server === 'local' && t.available)).toBe(true);
    daemon.kill('SIGKILL');
    expect(await daemon.exited).toBe('SIGKILL');
    // Each launcher sees its parent gone (within 200 ms); the stubborn server needs its SIGKILL, ~2 s after.
    await allGone(pids);
  });

  it('stops every server before exiting 0 on SIGTERM', async () => {
    const { daemon, pids } = await daemonWithServers('stopped');
    daemon.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    expect(pids.filter(isAlive)).toEqual([]);
  });
});
