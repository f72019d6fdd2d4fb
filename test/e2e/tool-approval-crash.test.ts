/** `vigil run` with a tool under approval: `kill -9` while a call waits; after the restart `vigil tools pending` still lists it, `vigil tools approve` runs it once, and its turn is answered once. */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import { ROOT, STDIO_FIXTURE } from '../subsystems/tools/mcp-hub.fixture.js';
import { startDaemon, type DaemonProcess } from './daemon-process.js';
import { runNode } from './run-process.js';

const dir = mkdtempSync(join(tmpdir(), 'vigil-approval-crash-'));
const started: DaemonProcess[] = [];
afterEach(() => {
  for (const daemon of started.splice(0)) daemon.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = 'approval-crash-token-0123456789';

/** Polls `read` until `ok` accepts its value: another process has nothing to wait on. */
async function poll<T>(
  read: () => Promise<T> | T,
  ok: (value: T) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const text = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

describe('a tool call waiting for approval across kill -9', () => {
  it('is still pending after the restart, approved with the CLI it runs once, and its turn ends once with the result', async () => {
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
            env: { FIXTURE_COUNT_FILE: countFile },
            requireApproval: ['tally'],
          },
        },
      }),
    );
    const dataDir = join(dir, 'data');
    const env = { VIGIL_MCP_CONFIG: config, VIGIL_TOKEN: TOKEN, VIGIL_LOG_LEVEL: 'info' };
    const run = async (): Promise<{ daemon: DaemonProcess; client: VigilClient; url: string }> => {
      const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], env);
      started.push(daemon);
      const listening = await daemon.waitFor((l) => l.msg === 'gateway listening', 20_000, 'gateway listening');
      await daemon.waitFor((l) => l.msg === 'mcp.server_up', 20_000, 'mcp.server_up');
      const url = String(listening.url);
      return { daemon, url, client: await connect({ url, token: TOKEN, reconnect: false }) };
    };

    const first = await run();
    const { turnId } = await first.client.agent.send({
      text: '/tool fixture__tally {"text": "survived"}',
      from: 'e2e',
    });
    const [waiting] = await poll(
      () => first.client.tools.pending(),
      (pending) => pending.length === 1,
      'the call to wait for approval',
    );
    expect(waiting).toMatchObject({ name: 'mcp__fixture__tally', turnId, args: { text: 'survived' } });
    first.daemon.kill('SIGKILL');
    expect(await first.daemon.exited).toBe('SIGKILL');
    await first.client.close().catch(() => undefined);

    const second = await run();
    const cli = (args: string[]) => runNode(['bin/vigil.js', ...args, '--url', second.url, '--token', TOKEN]);
    const listed = await cli(['tools', 'pending', '--json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([waiting]);
    // Still waiting: the restarted agent did not answer the turn, nor run the call.
    expect(
      (await second.client.events.history({ types: ['agent.reply', 'agent.unanswered'] })).filter(
        (e) => (e as { turnId?: string }).turnId === turnId,
      ),
    ).toEqual([]);
    expect(text(countFile)).toBe('');

    const approved = await cli(['tools', 'approve', waiting!.callId]);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ callId: waiting!.callId, approved: true });
    const endings = await poll(
      async () =>
        (await second.client.events.history({ types: ['agent.reply', 'agent.unanswered'], limit: 100 })).filter(
          (e) => (e as { turnId?: string }).turnId === turnId,
        ),
      (found) => found.length > 0,
      'the turn to be answered',
    );
    expect(endings).toEqual([
      expect.objectContaining({
        type: 'agent.reply',
        text: expect.stringMatching(/approved by the operator and returned:\nsurvived$/),
      }),
    ]);
    expect(text(countFile)).toBe('1');
    expect((await cli(['tools', 'approve', waiting!.callId])).code).toBe(1);
    await second.client.close();
    second.daemon.kill('SIGTERM');
    expect(await second.daemon.exited).toBe(0);
  });
});
