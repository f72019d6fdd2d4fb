/**
 * `vigil run` with VIGIL_CHECKPOINT_KEY: markers sent through RPC (a message, a goal title, a working-memory item, an
 * MCP tool call's args and result) are in no file of the data dir, while the daemon runs and after SIGTERM; the right
 * key brings them back; a wrong key or none exits 2 naming the variable.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import { ROOT, STDIO_FIXTURE } from '../subsystems/tools/mcp-hub.fixture.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';

const dir = mkdtempSync(join(tmpdir(), 'vigil-sealed-e2e-'));
const started: DaemonProcess[] = [];
afterEach(() => {
  for (const daemon of started.splice(0))
    if (daemon.proc.exitCode === null && daemon.proc.signalCode === null) daemon.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = 'sealed-e2e-token-0123456789';
const KEY = randomBytes(32).toString('hex');
const OTHER_KEY = randomBytes(32).toString('base64');
const unique = (what: string) => `${what}-${randomBytes(6).toString('hex')}`;
const MARKERS = {
  message: unique('harbour-message'),
  goal: unique('lighthouse-goal'),
  memory: unique('keeper-memory'),
  tool: unique('tide-tool'),
};

/** Every byte of every file under `root`, read now (LevelDB's open log included). */
function allBytes(root: string): Buffer {
  const files = readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return Buffer.concat(files.map((file) => readFileSync(join(file.parentPath, file.name))));
}

/** Which markers the bytes under `root` hold (none, if sealed); and whether the scan saw the stores' keys at all. */
function scan(root: string): { found: string[]; sawKeys: boolean } {
  const bytes = allBytes(root);
  return {
    found: Object.values(MARKERS).filter((marker) => bytes.includes(Buffer.from(marker))),
    sawKeys: bytes.includes(Buffer.from('!conversation!')) && bytes.includes(Buffer.from('!event-journal!')),
  };
}

async function until<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a data dir sealed with VIGIL_CHECKPOINT_KEY', () => {
  const dataDir = join(dir, 'data');
  const config = join(dir, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { fixture: { command: process.execPath, args: ['--import', 'tsx', STDIO_FIXTURE], cwd: ROOT } },
    }),
  );
  const env = (key: string | undefined) => ({
    ...FAST_ENV,
    VIGIL_TOKEN: TOKEN,
    VIGIL_MCP_CONFIG: config,
    ...(key === undefined ? {} : { VIGIL_CHECKPOINT_KEY: key }),
  });
  const run = async (key: string | undefined): Promise<{ daemon: DaemonProcess; client: VigilClient }> => {
    const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], env(key));
    started.push(daemon);
    const listening = await daemon.waitFor((l) => l.msg === 'gateway listening', 30_000, 'gateway listening');
    await daemon.waitFor((l) => l.msg === 'mcp.server_up', 30_000, 'mcp.server_up');
    return { daemon, client: await connect({ url: String(listening.url), token: TOKEN, reconnect: false }) };
  };
  const replyTo = async (client: VigilClient, text: string): Promise<string> => {
    const { turnId } = await client.agent.send({ text, from: 'e2e' });
    const reply = await until(
      async () =>
        (await client.events.history({ types: ['agent.reply'], limit: 50 })).find(
          (e) => 'turnId' in e && e.turnId === turnId,
        ),
      (event) => event !== undefined,
      `the reply to ${JSON.stringify(text)}`,
    );
    return (reply as { text: string }).text;
  };

  it('holds no marker in any file while running and after SIGTERM; the right key reads them back; a wrong key or none exits 2', async () => {
    const first = await run(KEY);
    await first.client.goals.add({ title: MARKERS.goal, priority: 5 });
    expect(await replyTo(first.client, `Hello keeper, ${MARKERS.message}`)).toBeTruthy();
    expect(await replyTo(first.client, `remember that ${MARKERS.memory}`)).toContain(MARKERS.memory);
    expect(await replyTo(first.client, `/tool fixture__echo ${JSON.stringify({ text: MARKERS.tool })}`)).toMatch(
      new RegExp(`^mcp__fixture__echo returned:\\s+${MARKERS.tool}$`),
    );
    expect((await first.client.memory.list()).map((m) => m.content)).toContain(MARKERS.memory);
    // A checkpoint holding them all (goal, memory, conversation) is on disk too.
    await first.client.checkpoint.create();

    // While running: the write-ahead log and tables hold the stores' keys, and not one marker.
    const running = scan(dataDir);
    expect(running.sawKeys).toBe(true);
    expect(running.found).toEqual([]);

    await first.client.close();
    first.daemon.kill('SIGTERM');
    expect(await first.daemon.exited).toBe(0);
    const stopped = scan(dataDir);
    expect(stopped.sawKeys).toBe(true);
    expect(stopped.found).toEqual([]);

    // The right key: the agent is all there.
    const second = await run(KEY);
    const texts = (await second.client.conversation.list({ limit: 50 })).map((m) => m.text).join('\n');
    for (const marker of [MARKERS.message, MARKERS.memory, MARKERS.tool]) expect(texts).toContain(marker);
    expect((await second.client.goals.list()).map((g) => g.title)).toContain(MARKERS.goal);
    expect((await second.client.memory.list()).map((m) => m.content)).toContain(MARKERS.memory);
    const journal = JSON.stringify(await second.client.events.history({ types: ['goal.added'], limit: 10 }));
    expect(journal).toContain(MARKERS.goal);
    await second.client.close();
    second.daemon.kill('SIGTERM');
    expect(await second.daemon.exited).toBe(0);
    expect(scan(dataDir).found).toEqual([]);

    // Another key, or none: refused at boot, exit 2, the variable named; never a cold start over the agent.
    for (const key of [OTHER_KEY, undefined]) {
      const refused = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], env(key));
      started.push(refused);
      expect(await refused.exited).toBe(2);
      expect(refused.stderr()).toMatch(
        key === undefined
          ? /is sealed \(key id [0-9a-f]{8}\) but VIGIL_CHECKPOINT_KEY is not set/
          : /sealed with another key \(key id [0-9a-f]{8}\) than VIGIL_CHECKPOINT_KEY/,
      );
      expect(refused.lines.some((l) => l.msg === 'gateway listening')).toBe(false);
    }
  });
});
