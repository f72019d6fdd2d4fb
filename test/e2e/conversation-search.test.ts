/**
 * The whole conversation searchable in a real daemon (the offline thinker, VIGIL_CHECKPOINT_KEY set): a fact said 300
 * messages ago, which the agent never kept in long-term memory, is found by `conversation.search` and by the agent's
 * recall (`/recall`), also after kill -9 and a restart that rebuilds the index from the log; no file of the data dir
 * holds it in plaintext.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';

const root = mkdtempSync(join(tmpdir(), 'vigil-conv-search-'));
const started: DaemonProcess[] = [];
const clients: VigilClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  for (const daemon of started.splice(0))
    if (daemon.proc.exitCode === null && daemon.proc.signalCode === null) daemon.kill('SIGKILL');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const TOKEN = 'conversation-search-token-0123456789';
const KEY = randomBytes(32).toString('hex');
// Letters and digits only, so it is one word to the index; past the 80 characters the offline thinker notes of a
// message in working memory, so nothing the agent keeps can hold it: only the conversation log does.
const MARKER = `tangerine${randomBytes(5).toString('hex')}`;
const FACT =
  'Before I forget, there is something small but important I want to tell you today about the gym: ' +
  `my locker code there is ${MARKER}.`;
const FILLERS = 300;

/** Every byte of every file under `dir`, read now (LevelDB's open log included). */
function allBytes(dir: string): Buffer {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return Buffer.concat(files.map((file) => readFileSync(join(file.parentPath, file.name))));
}

async function start(dataDir: string): Promise<{ daemon: DaemonProcess; client: VigilClient }> {
  const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], {
    ...FAST_ENV,
    VIGIL_TOKEN: TOKEN,
    VIGIL_CHECKPOINT_KEY: KEY,
  });
  started.push(daemon);
  const listening = await daemon.waitFor((l) => l.msg === 'gateway listening', 30_000, 'gateway listening');
  const client = await connect({ url: String(listening.url), token: TOKEN, reconnect: false });
  clients.push(client);
  return { daemon, client };
}

/** Sends `text` and waits for the agent's reply to it; returns the reply's text. */
async function ask(client: VigilClient, text: string): Promise<string> {
  const { turnId } = await client.agent.send({ text, from: 'e2e' });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const entries = await client.conversation.list({ limit: 20 });
    const reply = entries.find((e) => e.role === 'agent' && e.turnId === turnId);
    if (reply !== undefined) return reply.text;
    if (Date.now() > deadline) throw new Error(`no reply to ${turnId} within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The agent's recall of the marker: its `/recall` answer names the message it was said in. */
async function expectRecalled(client: VigilClient, factSeq: number): Promise<void> {
  const answer = await ask(client, `/recall ${MARKER}`);
  expect(answer).toContain('From long-term memory and the conversation:');
  expect(answer).toContain(`[msg-${factSeq}] conversation, user (e2e), `);
  expect(answer).toContain(MARKER);
}

describe('conversation search (e2e)', () => {
  it('finds a fact said 300 messages ago and never kept, by search and by recall, after kill -9, sealed on disk', async () => {
    const dataDir = join(root, 'data');
    const first = await start(dataDir);
    await ask(first.client, FACT);
    for (let i = 0; i < FILLERS; i += 1) await first.client.agent.send({ text: `filler note ${i}`, from: 'e2e' });
    await ask(first.client, 'That is all the filler for now.');

    const [hit] = await first.client.conversation.search({ query: 'what is my gym locker code', limit: 3 });
    expect(hit).toMatchObject({ role: 'user', from: 'e2e', text: FACT });
    const factSeq = hit!.seq;
    const [newest] = await first.client.conversation.list({ limit: 1 });
    expect(newest!.seq - factSeq).toBeGreaterThanOrEqual(FILLERS);
    expect((await first.client.conversation.search({ query: MARKER }))[0]?.seq).toBe(factSeq);
    // Never remembered: long-term memory holds nothing of it.
    expect(await first.client.memory.search({ query: MARKER })).toEqual([]);
    await expectRecalled(first.client, factSeq);

    first.daemon.kill('SIGKILL');
    await first.daemon.exited;
    expect(allBytes(dataDir).includes(MARKER)).toBe(false);

    const second = await start(dataDir);
    // Waits for the index's background rebuild from the log.
    const found = await second.client.conversation.search({ query: MARKER, before: new Date().toISOString() });
    // The fact, and the first run's `/recall` of it (its question and answer say the marker too).
    expect(found.find((h) => h.seq === factSeq)).toMatchObject({ role: 'user', text: FACT });
    expect(await second.client.conversation.search({ query: MARKER, after: new Date().toISOString() })).toEqual([]);
    await expectRecalled(second.client, factSeq);
    expect(allBytes(dataDir).includes(MARKER)).toBe(false);

    second.daemon.kill('SIGTERM');
    await second.daemon.exited;
    expect(allBytes(dataDir).includes(MARKER)).toBe(false);
  }, 240_000);
});
