/** PersistedSeq: a synchronous counter whose numbers only grow, across clean restarts (without a gap) and crashes alike. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Level } from 'level';
import { MemoryLevel } from 'memory-level';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SEQ_BLOCK_SIZE, PersistedSeq } from '../../../src/subsystems/store/persisted-seq.js';
import { SUBLEVELS, type VigilDb } from '../../../src/subsystems/store/vigil-db.js';

const CHILD = fileURLToPath(new URL('../../fixtures/seq-crash.child.ts', import.meta.url));

/** Runs the crash child: it prints the numbers it issued, then is killed with SIGKILL before any clean shutdown. */
function runCrashingChild(dataDir: string, count: number, ending: 'kill' | 'close' = 'kill'): Promise<number[]> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', CHILD, dataDir, String(count), ending], (err, stdout, stderr) => {
      if (err !== null && err.signal !== 'SIGKILL') reject(new Error(`child failed: ${stderr}`));
      else resolve(JSON.parse(stdout) as number[]);
    });
  });
}

function storedCeiling(db: VigilDb, name = 'events'): Promise<number | undefined> {
  return db.sublevel<string, number>(SUBLEVELS.seq, { valueEncoding: 'json' }).get(name);
}

function take(seq: PersistedSeq, n: number): number[] {
  return Array.from({ length: n }, () => seq.next());
}

describe('PersistedSeq', () => {
  let db: VigilDb | undefined;
  const dirs: string[] = [];

  afterEach(async () => {
    if (db?.status === 'open') await db.close();
    db = undefined;
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('counts from 1 on an empty store, with the first block durable before open resolves', async () => {
    db = new MemoryLevel<string, string>();
    const seq = await PersistedSeq.open(db, { blockSize: 100 });
    expect(await storedCeiling(db)).toBe(100);
    expect(take(seq, 3)).toEqual([1, 2, 3]);
    expect(seq.current()).toBe(3);
  });

  it('reserves the next block in the background once half the current one is used', async () => {
    db = new MemoryLevel<string, string>();
    const seq = await PersistedSeq.open(db, { blockSize: 10 });
    take(seq, 4);
    await seq.flush();
    expect(await storedCeiling(db)).toBe(10);
    take(seq, 1);
    await seq.flush();
    expect(await storedCeiling(db)).toBe(20);
    expect(take(seq, 10)).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
  });

  it('starts above the stored ceiling after a clean reopen', async () => {
    db = new MemoryLevel<string, string>();
    const first = await PersistedSeq.open(db, { blockSize: 100 });
    const issued = take(first, 5);
    await first.flush();
    await db.close();
    await db.open();
    const second = await PersistedSeq.open(db, { blockSize: 100 });
    expect(second.next()).toBeGreaterThan(Math.max(...issued));
  });

  it('never repeats a number after a crash mid-reservation', async () => {
    db = new MemoryLevel<string, string>();
    const crashed = await PersistedSeq.open(db, { blockSize: 10 });
    // Use enough to start a reservation, then "crash": drop the instance without waiting for it.
    const issued = take(crashed, 8);
    const next = await PersistedSeq.open(db, { blockSize: 10 });
    const after = take(next, 5);
    expect(Math.min(...after)).toBeGreaterThan(Math.max(...issued));
  });

  it('never repeats a number across many crashes of a real on-disk database', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vigil-seq-'));
    dirs.push(dir);
    let highest = 0;
    for (let run = 0; run < 5; run += 1) {
      db = new Level<string, string>(dir);
      await db.open();
      const seq = await PersistedSeq.open(db, { blockSize: 8 });
      const issued = take(seq, 3 + run);
      expect(Math.min(...issued)).toBeGreaterThan(highest);
      highest = Math.max(...issued);
      // No flush: the process dies here; only what was fsynced counts.
      await db.close();
    }
  });

  it('never repeats a number across processes killed with SIGKILL', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vigil-seq-kill-'));
    dirs.push(dir);
    let highest = 0;
    for (const count of [3, 6, 9]) {
      const issued = await runCrashingChild(dir, count);
      expect(issued).toHaveLength(count);
      expect(issued[0]!).toBeGreaterThan(highest);
      highest = issued.at(-1)!;
    }
  });

  it('continues right after the last number after a clean close, and deletes that record at the next open', async () => {
    db = new MemoryLevel<string, string>();
    const first = await PersistedSeq.open(db);
    expect(take(first, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    await first.close();
    const second = await PersistedSeq.open(db);
    expect(take(second, 2)).toEqual([8, 9]);
    // No close this time (a crash): the next run starts a block above the stored ceiling, as it always did.
    expect(await storedCeiling(db)).toBe(7 + DEFAULT_SEQ_BLOCK_SIZE);
    const third = await PersistedSeq.open(db);
    expect(third.next()).toBe(7 + 2 * DEFAULT_SEQ_BLOCK_SIZE + 1);
  });

  it('deletes the clean-close record when a number is drawn after the close', async () => {
    db = new MemoryLevel<string, string>();
    const seq = await PersistedSeq.open(db, { blockSize: 100 });
    take(seq, 5);
    await seq.close();
    const late = seq.next();
    await seq.flush();
    const reopened = await PersistedSeq.open(db, { blockSize: 100 });
    expect(reopened.next()).toBeGreaterThan(late);
  });

  it('never repeats a number across clean stops and SIGKILLs mixed, and a clean stop leaves no gap', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vigil-seq-close-'));
    dirs.push(dir);
    let previous: number[] = [];
    let previousEnding: 'kill' | 'close' | null = null;
    for (const [count, ending] of [
      [4, 'close'],
      [5, 'kill'],
      [3, 'close'],
      [2, 'kill'],
    ] as const) {
      const issued = await runCrashingChild(dir, count, ending);
      expect(issued).toHaveLength(count);
      if (previousEnding !== null) expect(issued[0]!).toBeGreaterThan(previous.at(-1)!);
      if (previousEnding === 'close') expect(issued[0]).toBe(previous.at(-1)! + 1);
      previous = issued;
      previousEnding = ending;
    }
  });

  it('never throws when a burst outruns the reservations, and the next reservation covers what was issued', async () => {
    db = new MemoryLevel<string, string>();
    const seq = await PersistedSeq.open(db, { blockSize: 4 });
    // 25 numbers without yielding: far past the one block reserved so far.
    const burst = take(seq, 25);
    expect(burst).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    await seq.flush();
    expect(await storedCeiling(db, 'events')).toBeGreaterThanOrEqual(25);
    // A restart begins a block above the stored ceiling: above anything issued, even in a burst.
    const reopened = await PersistedSeq.open(db, { blockSize: 4 });
    expect(reopened.next()).toBeGreaterThan(25);
  });

  it('keeps separate counters by name', async () => {
    db = new MemoryLevel<string, string>();
    const events = await PersistedSeq.open(db, { blockSize: 10 });
    const other = await PersistedSeq.open(db, { name: 'other', blockSize: 50 });
    expect([events.next(), other.next()]).toEqual([1, 1]);
    expect(await storedCeiling(db, 'other')).toBe(50);
  });

  it('refuses a corrupt stored ceiling with STORE_IO', async () => {
    db = new MemoryLevel<string, string>();
    await db.sublevel<string, unknown>(SUBLEVELS.seq, { valueEncoding: 'json' }).put('events', 'lots');
    await expect(PersistedSeq.open(db)).rejects.toMatchObject({ code: 'STORE_IO' });
  });
});
