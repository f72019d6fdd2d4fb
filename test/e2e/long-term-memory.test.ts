/**
 * Long-term memory in a real daemon thinking with the real Anthropic SDK against the fake Messages API: a fact the
 * model keeps is found by memory.search, also after kill -9 and after export / import to a fresh data dir; it is
 * recalled into later prompts until memory.forget, after which it is in neither search nor any prompt.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import {
  firstUserText,
  message,
  pendingTurnIds,
  startFakeMessagesApi,
  toolUse,
  type FakeMessagesApi,
  type RecordedRequest,
} from '../fixtures/fake-messages-api.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';

const root = mkdtempSync(join(tmpdir(), 'vigil-ltm-'));
const started: DaemonProcess[] = [];
const clients: VigilClient[] = [];
let api: FakeMessagesApi | undefined;
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  for (const daemon of started.splice(0)) daemon.kill('SIGKILL');
  await api?.close();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const TOKEN = 'long-term-memory-token-0123456789';
const FACT = 'The locker code is 4512';

/** The state message (first user message) of a think request. */
function stateOf(request: RecordedRequest): string {
  return firstUserText(request);
}

/** The fake model: keeps the fact when asked to, answers every pending message, and ends after tool results. */
function model(request: RecordedRequest) {
  const messages = request.body?.messages ?? [];
  if (messages.length > 1) return message([]);
  const turnIds = pendingTurnIds(request);
  const keep = stateOf(request).includes('keep my locker code')
    ? [toolUse('remember', { content: FACT, salience: 0.7, keep: true })]
    : [];
  return message([...keep, ...turnIds.map((turnId) => toolUse('reply', { turnId, text: 'Done.' }))]);
}

async function start(dataDir: string, anthropic: boolean): Promise<{ daemon: DaemonProcess; client: VigilClient }> {
  const env = {
    ...FAST_ENV,
    VIGIL_TOKEN: TOKEN,
    ...(anthropic ? { VIGIL_THINKER: 'anthropic', ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: api!.url } : {}),
  };
  const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], env);
  started.push(daemon);
  const listening = await daemon.waitFor((l) => l.msg === 'gateway listening', 20_000, 'gateway listening');
  const client = await connect({ url: String(listening.url), token: TOKEN, reconnect: false });
  clients.push(client);
  return { daemon, client };
}

/** Sends `text` and waits for its reply. */
async function ask(client: VigilClient, text: string): Promise<string> {
  const { turnId } = await client.agent.send({ text, from: 'e2e' });
  const deadline = Date.now() + 15_000;
  for (;;) {
    const events = (await client.events.history({ types: ['agent.reply', 'agent.unanswered'], limit: 100 })) as Array<{
      type: string;
      turnId?: string;
    }>;
    const ending = events.find((e) => e.turnId === turnId);
    if (ending !== undefined) {
      expect(ending.type).toBe('agent.reply');
      return turnId;
    }
    if (Date.now() > deadline) throw new Error(`no reply to ${turnId} within 15 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The first think request that carried `turnId`. */
function thinkFor(turnId: string): RecordedRequest {
  const found = api!.requests.find((r) => (r.body?.messages?.length ?? 0) === 1 && pendingTurnIds(r).includes(turnId));
  if (found === undefined) throw new Error(`no think request carried ${turnId}`);
  return found;
}

describe('long-term memory of a daemon thinking with Claude', () => {
  it('keeps a fact across kill -9 and export / import, recalls it into prompts, and forgets it for good', async () => {
    api = await startFakeMessagesApi();
    api.enqueue(...Array.from({ length: 40 }, () => ({ kind: 'respond' as const, respond: model })));
    const dataDir = join(root, 'data');

    const first = await start(dataDir, true);
    await ask(first.client, 'Please keep my locker code in mind: it is the one on the note.');
    const [kept] = await first.client.memory.search({ query: 'locker code' });
    expect(kept).toMatchObject({ content: FACT, source: 'conversation' });
    expect(kept!.score).toBeGreaterThan(0);
    first.daemon.kill('SIGKILL');
    expect(await first.daemon.exited).toBe('SIGKILL');

    const second = await start(dataDir, true);
    // Fuzzy and prefix matches: a typo and a stem still find it after the crash.
    const [afterCrash] = await second.client.memory.search({ query: 'lockr', limit: 3 });
    expect(afterCrash).toMatchObject({ id: kept!.id, content: FACT });
    const recalledTurn = await ask(second.client, 'What is my locker code?');
    const recalled = stateOf(thinkFor(recalledTurn));
    expect(recalled).toMatch(/<recalled_memories>\n- \[mem-\d+\] conversation, [^\n]*4512/);
    const { id: checkpointId } = await second.client.checkpoint.create();
    const exported = await second.client.checkpoint.export({ id: checkpointId });
    expect(exported.memories).toEqual([expect.objectContaining({ content: FACT, source: 'conversation' })]);

    expect(await second.client.memory.forget({ id: kept!.id })).toEqual({ forgotten: kept!.id });
    expect(await second.client.memory.search({ query: 'locker code' })).toEqual([]);
    await expect(second.client.memory.forget({ id: kept!.id })).rejects.toMatchObject({
      code: -32004,
      vigilCode: 'MEMORY_NOT_FOUND',
    });
    const afterForget = await ask(second.client, 'What is my locker code?');
    // Neither recalled nor held in working memory: the fact is in no later prompt.
    expect(stateOf(thinkFor(afterForget))).not.toContain('4512');
    second.daemon.kill('SIGTERM');
    expect(await second.daemon.exited).toBe(0);

    // A fresh data dir: the export carries the memory, an import then restore brings it back.
    const third = await start(join(root, 'fresh'), false);
    expect(await third.client.memory.search({ query: 'locker' })).toEqual([]);
    const imported = await third.client.checkpoint.import({ document: exported });
    expect(imported.memories).toBe(1);
    await third.client.checkpoint.restore({ id: imported.id, confirm: true });
    const [moved] = await third.client.memory.search({ query: 'locker code 4512' });
    expect(moved).toMatchObject({ content: FACT, source: 'conversation', createdAt: kept!.createdAt });
  }, 90_000);
});
