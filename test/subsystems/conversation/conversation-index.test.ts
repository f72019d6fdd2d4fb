/** The conversation index on on-disk LevelDB: messages indexed as written, dropped by retention and restores, rebuilt at open, searched within a time window. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { NewConversationMessage } from '../../../src/protocol/conversation.schema.js';
import { ConversationIndex } from '../../../src/subsystems/conversation/conversation-index.js';
import { ConversationLog } from '../../../src/subsystems/conversation/conversation-log.js';
import { ConversationSearch } from '../../../src/subsystems/conversation/conversation-search.js';
import { openVigilDb, type VigilDb } from '../../../src/subsystems/store/vigil-db.js';
import { memoryRecallOf, recallMessagesForThink } from '../../../src/subsystems/memory/memory-recall.js';
import { LongTermMemory } from '../../../src/subsystems/memory/long-term-memory.js';
import { recallHitLine } from '../../../src/subsystems/thinking/recall-tool.js';

const dirs: string[] = [];
const dbs: VigilDb[] = [];
const indexes: ConversationIndex[] = [];
afterEach(async () => {
  for (const index of indexes.splice(0)) await index.stop();
  for (const db of dbs.splice(0)) await db.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const AT = Date.parse('2026-03-01T10:00:00Z');
const HOUR = 3_600_000;

function said(i: number, text: string): NewConversationMessage {
  return i % 2 === 1
    ? { turnId: `t-${i}`, role: 'user', text, from: 'alice', at: AT + i * HOUR }
    : { turnId: `t-${i - 1}`, role: 'assistant', text, at: AT + i * HOUR };
}

async function openAll(dataDir?: string, buildAfter?: PromiseLike<unknown>) {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'vigil-conv-index-'));
  if (dataDir === undefined) dirs.push(dir);
  const db = await openVigilDb(dir);
  dbs.push(db);
  const log = new ConversationLog(db);
  await log.open();
  const index = new ConversationIndex(log, buildAfter === undefined ? {} : { buildAfter });
  indexes.push(index);
  index.open();
  return { db, log, index, search: new ConversationSearch(index, log), dataDir: dir };
}

async function fill(log: ConversationLog, count: number, fact?: { at: number; text: string }): Promise<void> {
  const messages = Array.from({ length: count }, (_, k) =>
    said(k + 1, k + 1 === fact?.at ? fact.text : `small talk number ${k + 1} about the weather`),
  );
  await log.appendAll(messages);
}

describe('ConversationIndex', () => {
  it('finds a message as soon as it is written, by a stemmed word, with its role, sender and time', async () => {
    const { log, search } = await openAll();
    await fill(log, 20, { at: 7, text: 'The book I keep rereading is Piranesi by Susanna Clarke.' });
    const hits = await search.search({ query: 'which books did I reread', limit: 5 });
    expect(hits[0]?.message).toMatchObject({ seq: 7, role: 'user', from: 'alice', at: AT + 7 * HOUR });
    expect(hits[0]!.message.text).toContain('Piranesi');
    expect(hits[0]!.score).toBeGreaterThan(0);
  });

  it('rebuilds from the log at open, after the boot is done, and a search waits for the build', async () => {
    const first = await openAll();
    await fill(first.log, 1200, { at: 301, text: 'My locker code at the gym is 4471.' });
    await first.index.stop();
    await first.db.close();
    let bootDone!: () => void;
    const boot = new Promise<void>((resolve) => (bootDone = resolve));
    const second = await openAll(first.dataDir, boot);
    expect(second.index.built).toBe(false);
    expect(second.index.size).toBe(0);
    const found = second.search.search({ query: 'locker code', limit: 3 });
    const recalled = await second.search.recall('locker code', 3, new Set());
    expect(recalled).toEqual([]);
    bootDone();
    expect((await found)[0]?.message.seq).toBe(301);
    expect(second.index.size).toBe(1200);
    expect(second.index.built).toBe(true);
  });

  it('indexes messages written during the build once, and never brings back one pruned meanwhile', async () => {
    const first = await openAll();
    await fill(first.log, 1500, { at: 2, text: 'The spare key is under the blue flowerpot.' });
    await first.index.stop();
    await first.db.close();
    const second = await openAll(first.dataDir);
    const built = second.index.whenBuilt();
    await second.log.append(said(1501, 'A new message about the flowerpot.'));
    await second.log.pruneOldest(100, Number.MAX_SAFE_INTEGER);
    await built;
    expect(second.index.size).toBe(100);
    const hits = await second.search.search({ query: 'flowerpot', limit: 10 });
    // The one message that says it, then its neighbours lifted as its context (the ranking's neighbour lift).
    expect(hits.map((hit) => hit.message.seq)).toEqual([1501, 1500, 1499]);
  });

  it('drops the messages retention prunes from the index', async () => {
    const { log, index, search } = await openAll();
    await fill(log, 300, { at: 3, text: 'My sister lives in Lisbon.' });
    expect((await search.search({ query: 'Lisbon', limit: 5 }))[0]?.message.seq).toBe(3);
    await log.pruneOldest(100, Number.MAX_SAFE_INTEGER);
    expect(index.size).toBe(100);
    expect(await search.search({ query: 'Lisbon', limit: 5 })).toEqual([]);
    expect(index.rank('Lisbon', 5)).toEqual([]);
  });

  it('drops the messages a restore moves into an archive', async () => {
    const { log, index, search } = await openAll();
    await fill(log, 10, { at: 9, text: 'We agreed to meet on Tuesday at the harbour.' });
    await log.archiveAfter(5, 'restore-test');
    expect(index.size).toBe(5);
    expect(await search.search({ query: 'harbour', limit: 5 })).toEqual([]);
  });

  it('keeps to the time window: only messages said after `after` and before `before`', async () => {
    const { log, search } = await openAll();
    for (let i = 1; i <= 30; i += 1) await log.append(said(i, `note ${i}: the garden needs water`));
    const seqs = async (window: { before?: number; after?: number }) =>
      (await search.search({ query: 'garden water', limit: 50, window }))
        .map((h) => h.message.seq)
        .sort((a, b) => a - b);
    expect(await seqs({ after: AT + 25 * HOUR })).toEqual([26, 27, 28, 29, 30]);
    expect(await seqs({ before: AT + 4 * HOUR })).toEqual([1, 2, 3]);
    expect(await seqs({ after: AT + 10 * HOUR, before: AT + 13 * HOUR })).toEqual([11, 12]);
    // A full page within the window, though better matches lie outside it.
    expect(await search.search({ query: 'garden', limit: 2, window: { before: AT + 3 * HOUR } })).toHaveLength(2);
  });

  it("leaves out of a think's recall the messages it excludes (those its prompt shows already)", async () => {
    const { log, search } = await openAll();
    await log.append(said(1, 'The wifi password is tangerine-42.'));
    await log.append(said(2, 'Noted: the wifi password is tangerine-42.'));
    await search.search({ query: 'wifi', limit: 1 });
    const recalled = await search.recall('wifi password', 5, new Set([2]));
    expect(recalled.map((hit) => hit.message.seq)).toEqual([1]);
  });

  it('answers a query of stop words only with nothing', async () => {
    const { log, search } = await openAll();
    await fill(log, 10);
    expect(await search.search({ query: 'the and of', limit: 5 })).toEqual([]);
  });
});

describe('recall over memories and the conversation', () => {
  it("recalls into a think an old message its prompt no longer shows, never one it shows nor the turn's own", async () => {
    const { log, search } = await openAll();
    await fill(log, 300, { at: 5, text: 'The name of the book I mentioned is Piranesi.' });
    await log.append({ turnId: 't-ask', role: 'user', text: 'What was the book I mentioned?', at: AT + 400 * HOUR });
    await search.search({ query: 'book', limit: 1 });
    const recent = await log.readLast(50);
    const input = {
      pendingMessages: [{ turnId: 't-ask', text: 'What was the book I mentioned?', from: 'alice', at: AT }],
      goals: [],
      conversation: { summary: null, recent },
    };
    const recalled = await recallMessagesForThink(search, input);
    // The message that says it, alone: its neighbours rank with it in a search, but say none of the query's words
    // themselves and would only take the think's room.
    expect(recalled.map((m) => m.seq)).toEqual([5]);
    const shown = await recallMessagesForThink(search, {
      ...input,
      conversation: { summary: null, recent: await log.readLast(400) },
    });
    expect(shown).toEqual([]);
  });

  it("the recall tool answers memories and messages together, each saying which it is and when, never the asking turn's", async () => {
    const { db, log, search } = await openAll();
    const memory = new LongTermMemory(db);
    await memory.open();
    await memory.keep({ content: 'Alice reads Piranesi every winter.', source: 'conversation', salience: 0.7, at: AT });
    await fill(log, 20, { at: 3, text: 'My favourite novel is Piranesi.' });
    await log.append({ turnId: 't-ask', role: 'user', text: 'Piranesi?', at: AT + 100 * HOUR });
    const hits = await memoryRecallOf(memory, () => AT, search).recall('Piranesi', 5, 't-ask');
    // The memory and the message that say it first; then messages around that one, lifted as its context.
    expect(hits.map((hit) => hit.source)).toEqual([
      'memory',
      'conversation',
      'conversation',
      'conversation',
      'conversation',
    ]);
    expect(hits.flatMap((hit) => (hit.source === 'conversation' ? [hit.message.seq] : []))).not.toContain(21);
    expect(hits.slice(0, 2).map(recallHitLine)).toEqual([
      expect.stringMatching(
        /^- \[mem-1\] memory \(conversation\), 2026-03-01T10:00:00.000Z: "Alice reads Piranesi every winter."$/,
      ),
      `- [msg-3] conversation, user (alice), ${new Date(AT + 3 * HOUR).toISOString()}: "My favourite novel is Piranesi."`,
    ]);
    await memory.stop();
  });
});
