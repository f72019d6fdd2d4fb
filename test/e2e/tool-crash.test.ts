/** `kill -9` while a non-idempotent MCP tool call is in flight: after the restart it ran at most once, tool.interrupted was emitted, the turn ended once, no server left over. */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/vigil-client.js';
import { isAlive, ROOT, STDIO_FIXTURE } from '../subsystems/tools/mcp-hub.fixture.js';
import { startDaemon, type DaemonProcess } from './daemon-process.js';

const dir = mkdtempSync(join(tmpdir(), 'vigil-tool-crash-'));
const started: DaemonProcess[] = [];
afterEach(() => {
  for (const daemon of started.splice(0)) daemon.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = 'tool-crash-token-0123456789';
const TERMINAL = ['agent.reply', 'agent.unanswered'];

/** Polls `read` until it gives a value `ok` accepts: another process's files have nothing to wait on. */
async function poll<T>(read: () => T, ok: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const text = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');
const parentOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
};

describe('an MCP tool call cut short by kill -9', () => {
  it('is not run again after the restart, is reported once, and its turn ends once', async () => {
    const pidFile = join(dir, 'pids');
    const countFile = join(dir, 'count');
    const config = join(dir, 'mcp.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          fixture: {
            command: process.execPath,
            args: ['--import', 'tsx', STDIO_FIXTURE],
            cwd: ROOT,
            env: { FIXTURE_PID_FILE: pidFile, FIXTURE_COUNT_FILE: countFile },
          },
        },
      }),
    );
    const dataDir = join(dir, 'data');
    const env = { VIGIL_MCP_CONFIG: config, VIGIL_TOKEN: TOKEN, VIGIL_LOG_LEVEL: 'info' };
    const run = async () => {
      const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], env);
      started.push(daemon);
      const listening = await daemon.waitFor((l) => l.msg === 'gateway listening', 20_000, 'gateway listening');
      await daemon.waitFor((l) => l.msg === 'mcp.server_up', 20_000, 'mcp.server_up');
      return { daemon, client: await connect({ url: String(listening.url), token: TOKEN, reconnect: false }) };
    };

    const first = await run();
    const { turnId } = await first.client.agent.send({ text: '/tool fixture__hang', from: 'e2e' });
    // The server counted the call: it is in flight (and its intent is on disk, written before it was sent).
    await poll(
      () => text(countFile),
      (count) => count === '1',
      'the hang call to reach the server',
    );
    const pids = text(pidFile).trim().split('\n').map(Number);
    const group = [...pids, ...pids.map(parentOf)];
    first.daemon.kill('SIGKILL');
    expect(await first.daemon.exited).toBe('SIGKILL');
    await first.client.close().catch(() => undefined);
    // No server process of the killed daemon is left.
    await poll(
      () => group.filter(isAlive),
      (alive) => alive.length === 0,
      'the killed daemon’s servers to be gone',
    );

    const second = await run();
    const interrupted = await second.daemon.waitFor((l) => l.msg === 'tool.interrupted', 20_000, 'tool.interrupted');
    expect(interrupted).toMatchObject({ name: 'mcp__fixture__hang' });
    const events = async () =>
      (await second.client.events.history({ types: TERMINAL, limit: 100 })) as unknown as Array<{
        type: string;
        turnId: string;
        text?: string;
      }>;
    const endings = await (async () => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const found = (await events()).filter((e) => e.turnId === turnId);
        if (found.length > 0 || Date.now() > deadline) return found;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    expect(endings).toEqual([
      expect.objectContaining({
        type: 'agent.reply',
        turnId,
        text: expect.stringMatching(/outcome is unknown\. It was not run again/),
      }),
    ]);
    const history = await second.client.events.history({ types: ['tool.called', 'tool.interrupted'], limit: 100 });
    expect(history.map((e) => e.type)).toEqual(['tool.called', 'tool.interrupted']);
    expect(text(countFile)).toBe('1');
    expect((await second.client.heartbeat.status()).pendingMessages).toBe(0);
    await second.client.close();
    second.daemon.kill('SIGTERM');
    expect(await second.daemon.exited).toBe(0);
    // Still once: nothing ran it while the second daemon lived.
    expect(text(countFile)).toBe('1');
  });
});
