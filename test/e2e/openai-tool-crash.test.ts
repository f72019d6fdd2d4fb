/**
 * `vigil run` with VIGIL_THINKER=openai against the fake Chat Completions API: the model calls an MCP tool, the daemon
 * is killed with -9 while the call is in flight, and after the restart the call is not run again, the model is told
 * its outcome is unknown, and the turn ends with exactly one terminal event.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/vigil-client.js';
import {
  completion,
  firstUserText,
  pendingTurnIds,
  startFakeChatCompletions,
  toolCall,
  type FakeChatCompletions,
  type FakeChatResponse,
} from '../fixtures/fake-chat-completions.js';
import { ROOT, STDIO_FIXTURE } from '../subsystems/tools/mcp-hub.fixture.js';
import { startDaemon, type DaemonProcess } from './daemon-process.js';

const dir = mkdtempSync(join(tmpdir(), 'vigil-openai-crash-'));
const started: DaemonProcess[] = [];
let api: FakeChatCompletions;
beforeAll(async () => {
  api = await startFakeChatCompletions();
});
afterEach(() => {
  for (const daemon of started.splice(0)) daemon.kill('SIGKILL');
});
afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

const TOKEN = 'openai-crash-token-0123456789';
const TERMINAL = ['agent.reply', 'agent.unanswered'];
const MODEL = 'llama3.2';
const PRICE = { [MODEL]: { inputPerMTok: 0, outputPerMTok: 0, cacheWritePerMTok: 0, cacheReadPerMTok: 0 } };

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
const hasToolMessage = (body: { messages?: { role: string }[] }) =>
  (body.messages ?? []).some((m) => m.role === 'tool');

/**
 * The model after the restart: a think's first call replies to each pending turn, saying what its notice said;
 * a later call of the same think (after the replies' results) ends it.
 */
const modelAfterRestart: FakeChatResponse = {
  kind: 'respond',
  respond: (request) => {
    if (hasToolMessage(request.body)) return completion('');
    const told = /mcp__fixture__hang[^\n]*outcome is unknown/.test(firstUserText(request));
    const reply = told ? 'The lookup was cut off by a restart; I did not run it again.' : 'Nothing to add.';
    return completion(
      null,
      pendingTurnIds(request).map((turnId) => toolCall('reply', { turnId, text: reply })),
    );
  },
};

describe('the openai thinker across kill -9 during an MCP tool call', () => {
  it('calls the tool through the model, does not run it again after the restart, and ends the turn once', async () => {
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
    const env = {
      VIGIL_THINKER: 'openai',
      OPENAI_BASE_URL: api.url,
      VIGIL_MODEL: MODEL,
      VIGIL_PRICING_JSON: JSON.stringify(PRICE),
      VIGIL_MCP_CONFIG: config,
      VIGIL_TOKEN: TOKEN,
      VIGIL_LOG_LEVEL: 'info',
    };
    const run = async () => {
      const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], env);
      started.push(daemon);
      const listening = await daemon.waitFor((l) => l.msg === 'gateway listening', 20_000, 'gateway listening');
      await daemon.waitFor((l) => l.msg === 'mcp.server_up', 20_000, 'mcp.server_up');
      return { daemon, client: await connect({ url: String(listening.url), token: TOKEN, reconnect: false }) };
    };

    // The model calls the MCP tool, which never answers.
    api.enqueue(completion(null, [toolCall('mcp__fixture__hang', {})]));
    const first = await run();
    const { turnId } = await first.client.agent.send({ text: 'Look it up, please.', from: 'e2e' });
    await poll(
      () => text(countFile),
      (count) => count === '1',
      'the hang call to reach the server',
    );
    const sent = api.requests[0]!.body as { model: string; tools: { function: { name: string } }[] };
    expect(sent.model).toBe(MODEL);
    expect(sent.tools.map((t) => t.function.name)).toContain('mcp__fixture__hang');
    first.daemon.kill('SIGKILL');
    expect(await first.daemon.exited).toBe('SIGKILL');
    await first.client.close().catch(() => undefined);

    const before = api.requests.length;
    for (let i = 0; i < 20; i++) api.enqueue(modelAfterRestart);
    const second = await run();
    const interrupted = await second.daemon.waitFor((l) => l.msg === 'tool.interrupted', 20_000, 'tool.interrupted');
    expect(interrupted).toMatchObject({ name: 'mcp__fixture__hang' });
    type Terminal = { type: string; turnId: string; text?: string };
    const endingsOf = async () =>
      ((await second.client.events.history({ types: TERMINAL, limit: 100 })) as unknown as Terminal[]).filter(
        (e) => e.turnId === turnId,
      );
    let endings = await endingsOf();
    for (
      const deadline = Date.now() + 15_000;
      endings.length === 0 && Date.now() < deadline;
      endings = await endingsOf()
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(endings).toEqual([
      expect.objectContaining({
        type: 'agent.reply',
        turnId,
        text: 'The lookup was cut off by a restart; I did not run it again.',
      }),
    ]);
    // The model was asked again after the restart.
    expect(api.requests.length).toBeGreaterThan(before);
    const history = await second.client.events.history({ types: ['tool.called', 'tool.interrupted'], limit: 100 });
    expect(history.map((e) => e.type)).toEqual(['tool.called', 'tool.interrupted']);
    expect(text(countFile)).toBe('1');
    expect((await second.client.heartbeat.status()).pendingMessages).toBe(0);
    await second.client.close();
    second.daemon.kill('SIGTERM');
    expect(await second.daemon.exited).toBe(0);
    // The tool still ran once: nothing re-ran it while the second daemon lived.
    expect(text(countFile)).toBe('1');
  });
});
