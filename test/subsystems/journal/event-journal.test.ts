import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { MemoryLevel } from 'memory-level';
import { describe, expect, it, vi } from 'vitest';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import { counterSeq, EventBus } from '../../../src/events/event-bus.js';
import { EventJournal } from '../../../src/subsystems/journal/event-journal.js';
import type { VigilDb } from '../../../src/subsystems/store/vigil-db.js';

function setup(db: VigilDb, maxEvents = 1000, startSeq = 0) {
  const bus = new EventBus({ clock: createSimulatedClock(), currentBeat: () => 0, seq: counterSeq(startSeq) });
  const journal = new EventJournal(db, { maxEvents });
  journal.attach(bus);
  return { bus, journal };
}

describe('EventJournal', () => {
  it('pages forward after a seq, oldest first, and returns the newest N without one', async () => {
    const { bus, journal } = setup(new MemoryLevel());
    for (let i = 0; i < 10; i += 1) bus.emit('checkpoint.failed', { reason: `r${i}` });
    expect((await journal.query({ after: 3, limit: 2 })).map((e) => e.seq)).toEqual([4, 5]);
    expect((await journal.query({ limit: 3 })).map((e) => e.seq)).toEqual([8, 9, 10]);
    expect(await journal.lastSeq()).toBe(10);
  });

  it('runs its flush interval on the timers it is given, and writes the batch as one entry when one fires', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const scheduled: { fn: () => void; ms: number }[] = [];
    const timers = {
      setTimeout: (fn: () => void, ms: number) => scheduled.push({ fn, ms }),
      clearTimeout: () => undefined,
    };
    const bus = new EventBus({ clock: createSimulatedClock(), currentBeat: () => 0, seq: counterSeq() });
    new EventJournal(db, { timers, flushIntervalMs: 50 }).attach(bus);
    bus.emit('checkpoint.failed', { reason: 'queued' });
    bus.emit('checkpoint.failed', { reason: 'queued too' });
    expect(scheduled.map((timer) => timer.ms)).toEqual([50]);
    const stored = db.sublevel<string, unknown>('event-journal', { valueEncoding: 'json' });
    expect(await stored.keys().all()).toEqual([]);
    scheduled[0]!.fn();
    await vi.waitFor(async () => expect(await stored.keys().all()).toEqual(['0000000000000001']));
    expect(((await stored.get('0000000000000001')) as { seq: number }[]).map((event) => event.seq)).toEqual([1, 2]);
  });

  it('filters by type patterns before applying the limit', async () => {
    const { bus, journal } = setup(new MemoryLevel());
    bus.emit('agent.reply', { turnId: 't', text: 'a' });
    bus.emit('checkpoint.created', { checkpointId: 'c1', beatCount: 1, sizeBytes: 1, durationMs: 1 });
    bus.emit('agent.reply', { turnId: 't', text: 'b' });
    bus.emit('checkpoint.corrupt', { checkpointId: 'c0', reason: 'x' });
    const found = await journal.query({ types: ['checkpoint.*'], after: 0, limit: 10 });
    expect(found.map((e) => e.type)).toEqual(['checkpoint.created', 'checkpoint.corrupt']);
  });

  it('keeps only about the newest maxEvents', async () => {
    const { bus, journal } = setup(new MemoryLevel(), 100);
    for (let i = 0; i < 1000; i += 1) {
      bus.emit('checkpoint.failed', { reason: 'x' });
      if (i % 50 === 0) await journal.flush();
    }
    const oldest = (await journal.query({ after: 0, limit: 1 }))[0]!;
    expect(oldest.seq).toBeGreaterThan(1000 - 111);
    expect(await journal.query({ limit: 100 })).toHaveLength(100);
  });

  it('stays within about maxEvents over many runs shorter than one prune step (a daemon restarted twice a day)', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    let seq = 0;
    for (let run = 0; run < 30; run += 1) {
      // Each run writes fewer events than a tenth of the capacity, and its seqs start a reserved block higher.
      const { bus, journal } = setup(db, 100, seq + 20_000);
      for (let i = 0; i < 8; i += 1) bus.emit('checkpoint.failed', { reason: `run ${run}` });
      await journal.detach();
      seq = (await journal.lastSeq()) ?? seq;
    }
    const stored = db.sublevel<string, unknown>('event-journal', { valueEncoding: 'json' });
    expect((await stored.keys().all()).length).toBeLessThanOrEqual(110);
  });

  it('keeps the newest maxEvents by count across a restart whose seqs jump: an earlier run is not dropped whole', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const first = setup(db, 100);
    for (let i = 0; i < 40; i += 1) first.bus.emit('checkpoint.failed', { reason: 'first run' });
    await first.journal.detach();
    const second = setup(db, 100, 40 + 20_000);
    for (let i = 0; i < 30; i += 1) {
      second.bus.emit('checkpoint.failed', { reason: 'second run' });
      await second.journal.flush();
    }
    const all = await second.journal.query({ after: 0, limit: 1000 });
    expect(all).toHaveLength(70);
    expect(all.filter((e) => (e as { reason: string }).reason === 'first run')).toHaveLength(40);
  });

  it('survives a reopen of the on-disk database', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vigil-journal-'));
    try {
      const first = new Level(dir) as unknown as VigilDb;
      const a = setup(first);
      a.bus.emit('agent.reply', { turnId: 't', text: 'before' });
      await a.journal.detach();
      await first.close();
      const second = new Level(dir) as unknown as VigilDb;
      const b = setup(second, 1000, 1);
      b.bus.emit('agent.reply', { turnId: 't', text: 'after' });
      expect((await b.journal.query({ after: 0 })).map((e) => (e as { text: string }).text)).toEqual([
        'before',
        'after',
      ]);
      await b.journal.detach();
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('EventJournal reads against events still in flight', () => {
  it('never returns an event the bus has not delivered, so a replay cannot run ahead of the live feed', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const { bus, journal } = setup(db);
    bus.emit('checkpoint.failed', { reason: 'before' });
    // Two turn endings stamped before their synced writes; the second's write lands first.
    const first = bus.stamp('agent.reply', { turnId: 't1', text: 'one' });
    const second = bus.stamp('agent.reply', { turnId: 't2', text: 'two' });
    await (db as unknown as MemoryLevel<string, string>).batch([journal.entryOp(second) as never]);
    bus.publish(second);
    // On disk, but behind seq 2 which is still being written: a reader sees neither yet.
    expect((await journal.query({ after: 0 })).map((e) => e.seq)).toEqual([1]);
    expect((await journal.query({})).map((e) => e.seq)).toEqual([1]);
    expect(await journal.lastSeq()).toBe(1);
    bus.publish(first);
    expect((await journal.query({ after: 0 })).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(await journal.lastSeq()).toBe(3);
  });
});
