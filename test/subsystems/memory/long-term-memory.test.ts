/** The long-term memory store on on-disk LevelDB: synced writes, dedupe, forget, the watermark, and the index rebuilt at open. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StoredMemory } from '../../../src/protocol/memory.schema.js';
import { LongTermMemory } from '../../../src/subsystems/memory/long-term-memory.js';
import type { LongTermMemoryOptions } from '../../../src/subsystems/memory/long-term-memory.types.js';
import { memoryRecallOf } from '../../../src/subsystems/memory/memory-recall.js';
import { memoryContentHash, normaliseMemoryText } from '../../../src/subsystems/memory/memory-text.js';
import { openVigilDb, type VigilDb } from '../../../src/subsystems/store/vigil-db.js';

const dirs: string[] = [];
const dbs: VigilDb[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function openStore(
  dataDir?: string,
  options?: LongTermMemoryOptions,
): Promise<{ memory: LongTermMemory; db: VigilDb; dataDir: string }> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'vigil-ltm-store-'));
  if (dataDir === undefined) dirs.push(dir);
  const db = await openVigilDb(dir);
  dbs.push(db);
  const memory = new LongTermMemory(db, options);
  await memory.open();
  await memory.whenReady();
  return { memory, db, dataDir: dir };
}

async function reopen(dataDir: string, memory: LongTermMemory, db: VigilDb, options?: LongTermMemoryOptions) {
  await memory.stop();
  await db.close();
  return openStore(dataDir, options);
}

const AT = Date.parse('2026-03-01T10:00:00Z');

describe('LongTermMemory', () => {
  it('finds a kept fact by words, prefixes and small misspellings, best match first', async () => {
    const { memory } = await openStore();
    await memory.keep({
      content: 'The user prefers tea over coffee in the morning.',
      source: 'conversation',
      salience: 0.6,
      at: AT,
    });
    await memory.keep({
      content: 'Backups of the photo library run every Sunday night.',
      source: 'task',
      salience: 0.5,
      at: AT + 1,
    });
    await memory.keep({
      content: 'Encryption keys are rotated quarterly.',
      source: 'working_memory',
      salience: 0.7,
      at: AT + 2,
    });
    expect((await memory.search('coffee', 5)).map((h) => h.memory.content)).toEqual([
      'The user prefers tea over coffee in the morning.',
    ]);
    expect((await memory.search('encr', 5))[0]?.memory.content).toBe('Encryption keys are rotated quarterly.');
    expect((await memory.search('backpus photo', 5))[0]?.memory.content).toBe(
      'Backups of the photo library run every Sunday night.',
    );
    expect(await memory.search('the of in', 5)).toEqual([]);
  });

  it('expands a word cut short even when the other words alone fill the page', async () => {
    const { memory } = await openStore();
    for (let i = 0; i < 12; i += 1)
      await memory.keep({ content: `Locker ${i} is in hall B.`, source: 'task', salience: 0.5, at: AT + i });
    await memory.keep({ content: 'The locker code is 4512.', source: 'conversation', salience: 0.7, at: AT + 20 });
    expect((await memory.search('locker cod', 10))[0]?.memory.content).toBe('The locker code is 4512.');
    expect(await memory.search('locker', 10)).toHaveLength(10);
  });

  it('keeps the same fact twice as one memory, refreshed (later updatedAt, the higher salience)', async () => {
    const { memory } = await openStore();
    const first = await memory.keep({
      content: 'The deploy window is Tuesday.',
      source: 'conversation',
      salience: 0.6,
      at: AT,
    });
    const again = await memory.keep({
      content: '  the DEPLOY window is   tuesday ',
      source: 'working_memory',
      salience: 0.8,
      at: AT + 5_000,
    });
    expect(first.created).toBe(true);
    expect(again).toMatchObject({
      created: false,
      memory: { id: first.memory.id, source: 'conversation', salience: 0.8, createdAt: AT, updatedAt: AT + 5_000 },
    });
    expect(memory.size).toBe(1);
    expect(memory.watermark()).toBe(1);
  });

  it('forgets a memory from the store and the index, and never issues its seq again', async () => {
    const { memory, db, dataDir } = await openStore();
    const kept = await memory.keep({
      content: 'The locker code is 4512.',
      source: 'conversation',
      salience: 0.7,
      at: AT,
    });
    await memory.forget(kept.memory.id);
    expect(await memory.search('locker', 5)).toEqual([]);
    await expect(memory.forget(kept.memory.id)).rejects.toMatchObject({
      code: 'MEMORY_NOT_FOUND',
      data: { id: kept.memory.id },
    });
    await expect(memory.forget('nonsense')).rejects.toMatchObject({ code: 'MEMORY_NOT_FOUND' });
    const reopened = await reopen(dataDir, memory, db);
    expect(await reopened.memory.search('locker', 5)).toEqual([]);
    const next = await reopened.memory.keep({
      content: 'Another fact entirely.',
      source: 'task',
      salience: 0.5,
      at: AT + 1,
    });
    expect(next.memory.seq).toBe(2);
  });

  it('rebuilds the index from the store at open, with ids, times and sources intact', async () => {
    const { memory, db, dataDir } = await openStore();
    const kept = await memory.keep({
      content: 'Standup moved to 9:30.',
      source: 'working_memory',
      salience: 0.55,
      at: AT,
      createdAt: AT - 60_000,
    });
    const reopened = await reopen(dataDir, memory, db);
    expect(reopened.memory.ready).toBe(true);
    expect((await reopened.memory.search('standup', 5)).map((h) => h.memory)).toEqual([kept.memory]);
    expect(kept.memory.createdAt).toBe(AT - 60_000);
    // The same fact after the restart is still one memory.
    expect(
      (
        await reopened.memory.keep({
          content: 'Standup moved to 9:30',
          source: 'conversation',
          salience: 0.5,
          at: AT + 1,
        })
      ).created,
    ).toBe(false);
  });

  it('answers searches made before the background build has finished, once it has', async () => {
    const { memory, db, dataDir } = await openStore();
    for (let i = 0; i < 300; i += 1)
      await memory.keep({
        content: `note number ${i} about subject${i % 10}`,
        source: 'task',
        salience: 0.5,
        at: AT + i,
      });
    await memory.stop();
    await db.close();
    const db2 = await openVigilDb(dataDir);
    dbs.push(db2);
    const cold = new LongTermMemory(db2);
    await cold.open();
    expect(cold.ready).toBe(false);
    expect(cold.recall('subject7', 5)).toEqual([]);
    const hits = await cold.search('subject7', 30);
    expect(hits).toHaveLength(30);
    expect(hits.every((h) => h.memory.content.endsWith(' subject7'))).toBe(true);
    expect(cold.ready).toBe(true);
    expect(cold.watermark()).toBe(300);
    expect(await cold.countAfter(290)).toBe(10);
    expect((await cold.upTo(3)).map((m) => m.seq)).toEqual([1, 2, 3]);
  });

  it('with indexAfter, builds the index only once it settles, unless a search needs it first', async () => {
    const { memory, db, dataDir } = await openStore();
    for (let i = 0; i < 10; i += 1)
      await memory.keep({
        content: `fact ${i} about the ${i % 2 === 1 ? 'heron' : 'otter'}`,
        source: 'task',
        salience: 0.5,
        at: AT + i,
      });
    await memory.stop();
    await db.close();
    const db2 = await openVigilDb(dataDir);
    dbs.push(db2);

    // The build is the store's one full read: counted, it shows when the build begins.
    const builds = vi.spyOn(LongTermMemory.prototype as unknown as { load(): Promise<void> }, 'load');
    let listening!: () => void;
    const waiting = new LongTermMemory(db2, { indexAfter: new Promise<void>((resolve) => (listening = resolve)) });
    await waiting.open();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(builds).not.toHaveBeenCalled();
    expect(waiting.ready).toBe(false);
    expect(waiting.watermark()).toBe(10);
    listening();
    await waiting.whenReady();
    expect(builds).toHaveBeenCalledTimes(1);
    expect(waiting.size).toBe(10);
    await waiting.stop();
    builds.mockRestore();

    // Nothing settles it here: the search starts the build itself and answers in full.
    const asked = new LongTermMemory(db2, { indexAfter: new Promise<void>(() => undefined) });
    await asked.open();
    const hits = await asked.search('heron', 10);
    expect(hits.map((h) => h.memory.seq).sort((a, b) => a - b)).toEqual([2, 4, 6, 8, 10]);
    await asked.stop();

    // Stopped before it settled: the build never runs, and a late settle starts nothing on a closing database.
    let late!: () => void;
    const stopped = new LongTermMemory(db2, { indexAfter: new Promise<void>((resolve) => (late = resolve)) });
    await stopped.open();
    await stopped.stop();
    late();
    await expect(stopped.whenReady()).rejects.toMatchObject({ code: 'RUNTIME_STOPPED' });
    expect(stopped.size).toBe(0);
  });

  it('stores no user text in keys', async () => {
    const { memory, db } = await openStore();
    await memory.keep({ content: 'secret-word-in-content', source: 'conversation', salience: 0.5, at: AT });
    for await (const key of db.keys()) expect(key).not.toContain('secret');
  });
});

describe('LongTermMemory past VIGIL_MEMORY_MAX_COUNT', () => {
  it('forgets the least worth keeping in the write that keeps a new one, for good', async () => {
    const evictions: string[][] = [];
    const options: LongTermMemoryOptions = {
      maxCount: 5,
      onEvicted: (memories: readonly StoredMemory[]) => evictions.push(memories.map((m) => m.id)),
    };
    const { memory, db, dataDir } = await openStore(undefined, options);
    const saliences = [0.9, 0.2, 0.8, 0.1, 0.7];
    for (const [i, salience] of saliences.entries()) {
      await memory.keep({ content: `Fact number ${i} about quokkas.`, source: 'conversation', salience, at: AT + i });
    }
    expect(evictions).toEqual([]);
    const sixth = await memory.keep({
      content: 'Fact number 5 about quokkas.',
      source: 'task',
      salience: 0.05,
      at: AT + 9,
    });
    // The new memory stays, whatever its salience; the weakest of the others goes (mem-4, salience 0.1).
    expect(sixth.created).toBe(true);
    expect(evictions).toEqual([['mem-4']]);
    expect(memory.size).toBe(5);
    expect(memory.get('mem-4')).toBeUndefined();
    const found = (await memory.search('quokkas', 10)).map((hit) => hit.memory.id).sort();
    expect(found).toEqual(['mem-1', 'mem-2', 'mem-3', 'mem-5', 'mem-6']);

    // Gone from the store too, and a lower bound after a restart applies at the next keep.
    const lowered = await reopen(dataDir, memory, db, { ...options, maxCount: 3 });
    expect(lowered.memory.size).toBe(5);
    expect(lowered.memory.get('mem-4')).toBeUndefined();
    await lowered.memory.keep({ content: 'Fact number 6 about quokkas.', source: 'task', salience: 0.5, at: AT + 20 });
    expect(evictions[1]).toEqual(['mem-6', 'mem-2', 'mem-5']);
    expect((await lowered.memory.search('quokkas', 10)).map((hit) => hit.memory.id).sort()).toEqual([
      'mem-1',
      'mem-3',
      'mem-7',
    ]);
    const again = await reopen(lowered.dataDir, lowered.memory, lowered.db);
    expect((await again.memory.upTo(again.memory.watermark())).map((m) => m.id)).toEqual(['mem-1', 'mem-3', 'mem-7']);
    // Seqs are never issued twice, evicted or not.
    expect(again.memory.watermark()).toBe(7);
  });
});

describe('LongTermMemory: memories in use', () => {
  const DAY_MS = 86_400_000;

  it('keeps a memory the agent recalls over an unused one kept at the same time, across a restart', async () => {
    const options: LongTermMemoryOptions = { maxCount: 3 };
    const { memory, db, dataDir } = await openStore(undefined, options);
    for (const i of [0, 1, 2])
      await memory.keep({ content: `Fact number ${i} about otters.`, source: 'conversation', salience: 0.5, at: AT });
    // Two months later the agent recalls mem-1 (the others are as worthy and as old, and mem-1 would go first of them).
    memory.noteRecalled(['mem-1'], AT + 60 * DAY_MS);
    expect((await memory.search('otters', 10)).length).toBe(3);
    expect(memory.get('mem-1')?.recalledAt).toBe(AT + 60 * DAY_MS);

    const again = await reopen(dataDir, memory, db, options);
    expect(again.memory.get('mem-1')?.recalledAt).toBe(AT + 60 * DAY_MS);
    expect(again.memory.get('mem-2')?.recalledAt).toBeUndefined();
    await again.memory.keep({ content: 'A new fact.', source: 'task', salience: 0.5, at: AT + 61 * DAY_MS });
    // Past the bound (3, down to 1 % below it: one goes): the oldest unused one, not the one in use.
    expect(again.memory.get('mem-1')).toBeDefined();
    expect(again.memory.get('mem-2')).toBeUndefined();
    expect(again.memory.get('mem-3')).toBeDefined();
  });

  it('writes a use at most once a day per memory, and never brings back a memory forgotten meanwhile', async () => {
    const { memory, db } = await openStore();
    await memory.keep({ content: 'Otters hold hands while sleeping.', source: 'conversation', salience: 0.5, at: AT });
    await memory.keep({ content: 'Otters keep a favourite stone.', source: 'conversation', salience: 0.5, at: AT });
    const batch = vi.spyOn(db, 'batch');
    // Kept today: in use already, nothing to write.
    memory.noteRecalled(['mem-1', 'mem-2'], AT + 1_000);
    memory.noteRecalled(['mem-1'], AT + DAY_MS);
    memory.noteRecalled(['mem-1'], AT + DAY_MS + 1_000);
    await memory.search('otters', 10);
    expect(batch).toHaveBeenCalledTimes(1);
    expect(memory.get('mem-1')?.recalledAt).toBe(AT + DAY_MS);

    // A forget queued before the use's write wins: the write skips what is gone.
    const forgetting = memory.forget('mem-2');
    memory.noteRecalled(['mem-2', 'mem-404'], AT + 5 * DAY_MS);
    await forgetting;
    await memory.search('otters', 10);
    expect(memory.get('mem-2')).toBeUndefined();
    expect((await memory.upTo(memory.watermark())).map((m) => m.id)).toEqual(['mem-1']);
  });

  it('counts what the recall tool finds as in use', async () => {
    const { memory } = await openStore();
    await memory.keep({ content: 'Otters use rocks as tools.', source: 'conversation', salience: 0.5, at: AT });
    await memory.keep({ content: 'Beavers build dams.', source: 'conversation', salience: 0.5, at: AT });
    const found = await memoryRecallOf(memory, () => AT + 3 * DAY_MS).recall('otters rocks', 5);
    expect(found.map((hit) => (hit.source === 'memory' ? hit.memory.id : hit.source))).toEqual(['mem-1']);
    await memory.search('otters', 10);
    expect(memory.get('mem-1')?.recalledAt).toBe(AT + 3 * DAY_MS);
    expect(memory.get('mem-2')?.recalledAt).toBeUndefined();
  });

  it('reports a failed write of a use and goes on', async () => {
    const errors: unknown[] = [];
    const { memory, db } = await openStore(undefined, { onRecallWriteError: (err) => errors.push(err) });
    await memory.keep({ content: 'Otters have dense fur.', source: 'conversation', salience: 0.5, at: AT });
    vi.spyOn(db, 'batch').mockRejectedValueOnce(new Error('disk full'));
    memory.noteRecalled(['mem-1'], AT + 2 * DAY_MS);
    await memory.search('otters', 10);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/disk full/);
    // The next keep still writes.
    await memory.keep({ content: 'Otters eat sea urchins.', source: 'conversation', salience: 0.5, at: AT });
    expect(memory.size).toBe(2);
  });
});

describe('memory text', () => {
  it('treats case, spacing and a final full stop as the same fact', () => {
    expect(normaliseMemoryText('  The  Deploy\nwindow is Tuesday. ')).toBe('the deploy window is tuesday');
    expect(memoryContentHash('A fact.')).toBe(memoryContentHash('a fact'));
    expect(memoryContentHash('A fact')).not.toBe(memoryContentHash('Another fact'));
  });
});
