import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { counterSeq, EventBus } from '../../../src/events/event-bus.js';
import type { VigilEvent } from '../../../src/protocol/events.schema.js';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import { EventJournal } from '../../../src/subsystems/journal/event-journal.js';
import { SealedLevel } from '../../../src/subsystems/store/sealed-level.js';
import { ValueCipher } from '../../../src/subsystems/store/value-cipher.js';
import { openVigilDb, type VigilDb, writeSyncBatch } from '../../../src/subsystems/store/vigil-db.js';

const KEY = 'b2'.repeat(32);
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A data dir's database on disk, sealed under KEY or not. */
async function open(dir: string, sealed: boolean): Promise<VigilDb> {
  const inner = await openVigilDb(dir);
  if (!sealed) return inner;
  const db = new SealedLevel(inner, new ValueCipher(KEY), { closeInner: true });
  await db.open();
  return db;
}

function busFrom(startSeq: number): EventBus {
  return new EventBus({ clock: createSimulatedClock(), currentBeat: () => 0, seq: counterSeq(startSeq) });
}

function journalOn(db: VigilDb, maxEvents: number, startSeq: number) {
  const bus = busFrom(startSeq);
  const journal = new EventJournal(db, { maxEvents });
  journal.attach(bus);
  return { bus, journal };
}

/** What the journal's sublevel holds: each entry's key and its value as stored. */
async function entries(db: VigilDb): Promise<[string, unknown][]> {
  return db.sublevel<string, unknown>('event-journal', { valueEncoding: 'json' }).iterator().all();
}

const seqs = (events: readonly VigilEvent[]): number[] => events.map((event) => event.seq);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe.each([false, true])('EventJournal over a data dir of the format before batching (sealed: %s)', (sealed) => {
  it('reads it as it is, resumes after a seq in it, goes on in the new format, and prunes it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vigil-journal-format-'));
    dirs.push(dir);
    // Written as the release before batching did: one event object per key, under the event's zero-padded seq.
    const before = await open(dir, sealed);
    const old = busFrom(0);
    const written: VigilEvent[] = [];
    old.events$.subscribe((event) => written.push(event));
    for (let i = 0; i < 30; i += 1) old.emit('checkpoint.failed', { reason: `old ${i}` });
    const stored = before.sublevel<string, VigilEvent>('event-journal', { valueEncoding: 'json' });
    await stored.batch(
      written.map((event) => ({ type: 'put', key: String(event.seq).padStart(16, '0'), value: event })),
    );
    await before.close();

    const db = await open(dir, sealed);
    const { bus, journal } = journalOn(db, 40, 30);
    expect(seqs(await journal.query({ limit: 5 }))).toEqual([26, 27, 28, 29, 30]);
    expect(seqs(await journal.query({ after: 10, limit: 3 }))).toEqual([11, 12, 13]);
    expect(await journal.lastSeq()).toBe(30);
    expect(await journal.query({ after: 0, limit: 1 })).toEqual([written[0]]);

    for (let i = 0; i < 20; i += 1) bus.emit('checkpoint.failed', { reason: `new ${i}` });
    await journal.flush();
    // The new events are entries of 4 (a journal of 40 flushes at a tenth of its size); resuming inside the old
    // entries walks on into them.
    const written20 = (await entries(db)).filter(([key]) => Number(key) > 30);
    expect(written20.map(([key, value]) => [Number(key), (value as VigilEvent[]).length])).toEqual([
      [31, 4],
      [35, 4],
      [39, 4],
      [43, 4],
      [47, 4],
    ]);
    expect(seqs(await journal.query({ after: 25, limit: 100 }))).toEqual(range(26, 50));
    expect(seqs(await journal.query({ after: 33, limit: 2 }))).toEqual([34, 35]);
    // 50 events past 40 kept: the ten oldest (entries of one) went, the newest 40 stay.
    expect(seqs(await journal.query({ after: 0, limit: 100 }))).toEqual(range(11, 50));
    await journal.detach();
    await db.close();
  });
});

describe('EventJournal entries', () => {
  it('writes an event recorded with its fact once, in an entry of its own, and reads after any seq in order', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vigil-journal-format-'));
    dirs.push(dir);
    const db = await open(dir, true);
    const { bus, journal } = journalOn(db, 1000, 0);
    bus.emit('checkpoint.failed', { reason: 'a' });
    bus.emit('checkpoint.failed', { reason: 'b' });
    const ending = bus.stamp('agent.reply', { turnId: 't', text: 'done' });
    await writeSyncBatch(db, [journal.entryOp(ending)]);
    bus.publish(ending);
    bus.emit('checkpoint.failed', { reason: 'c' });
    // A stamped event whose write failed: withdrawn, never delivered, and never written by the journal either.
    const failed = bus.stamp('agent.reply', { turnId: 'u', text: 'lost' });
    journal.entryOp(failed);
    bus.withdraw(failed);
    bus.emit('checkpoint.failed', { reason: 'd' });
    await journal.flush();
    const kept = (await entries(db)).map(([key, value]) => [Number(key), seqs(value as VigilEvent[])]);
    expect(kept).toEqual([
      [1, [1, 2]],
      [3, [3]],
      [4, [4]],
      [6, [6]],
    ]);
    for (let after = 0; after <= 6; after += 1) {
      const expected = [1, 2, 3, 4, 6].filter((seq) => seq > after);
      expect(seqs(await journal.query({ after }))).toEqual(expected);
    }
    expect(seqs(await journal.query({ limit: 3 }))).toEqual([3, 4, 6]);
    expect(seqs(await journal.query({ types: ['agent.*'], after: 0 }))).toEqual([3]);
    expect(await journal.lastSeq()).toBe(6);
    await journal.detach();
    await db.close();
  });

  it('prunes whole entries: the newest maxEvents stay, and an entry straddling the bound is kept whole', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vigil-journal-format-'));
    dirs.push(dir);
    const db = await open(dir, false);
    const { bus, journal } = journalOn(db, 100, 0);
    // Batches of 7 (a small journal flushes at a tenth of its size, 10 events): entries of 7 events each.
    for (let batch = 0; batch < 40; batch += 1) {
      for (let i = 0; i < 7; i += 1) bus.emit('checkpoint.failed', { reason: `${batch}` });
      await journal.flush();
      const held = (await entries(db)).flatMap(([, value]) => seqs(value as VigilEvent[]));
      const newest = (batch + 1) * 7;
      // Never fewer than the newest 100 (nor all of them before there are 100), at most one entry of 7 more past
      // the prune step of 10.
      expect(held).toEqual(range(newest - held.length + 1, newest));
      expect(held.length).toBeGreaterThanOrEqual(Math.min(newest, 100));
      expect(held.length).toBeLessThan(100 + 10 + 7);
    }
    await journal.detach();
    await db.close();
  });
});
