import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { counterSeq, EventBus } from '../../../src/events/event-bus.js';
import type { VigilEvent } from '../../../src/protocol/events.schema.js';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import { EventJournal, type JournalHold } from '../../../src/subsystems/journal/event-journal.js';
import type { VigilDb } from '../../../src/subsystems/store/vigil-db.js';

function setUp(hold: JournalHold, maxEvents: number, holdMax: number) {
  const bus = new EventBus({ clock: createSimulatedClock(), currentBeat: () => 0, seq: counterSeq() });
  const db = new MemoryLevel() as unknown as VigilDb;
  const journal = new EventJournal(db, { maxEvents });
  journal.useHold(hold, holdMax);
  journal.attach(bus);
  // What the journal holds, read from its sublevel (events.history stops at maxEvents).
  const stored = db.sublevel<string, unknown>('event-journal', { valueEncoding: 'json' });
  const kept = async (): Promise<number[]> => (await stored.keys().all()).map(Number);
  return { bus, journal, kept };
}

async function emit(bus: EventBus, journal: EventJournal, count: number): Promise<void> {
  // One flush per event: the journal prunes after its writes, and each write here is a batch of one.
  for (let i = 0; i < count; i += 1) {
    bus.emit('checkpoint.failed', { reason: `r${i}` });
    await journal.flush();
  }
}

describe('EventJournal with a hold (webhook endpoints behind)', () => {
  it('keeps the events a holder has not received past maxEvents, and prunes what it has', async () => {
    let received = 5;
    const dropped: VigilEvent[][] = [];
    const hold: JournalHold = {
      keepAfter: () => received,
      receivedThrough: () => received,
      dropping: (events) => {
        dropped.push([...events]);
        return Promise.resolve();
      },
    };
    const { bus, journal, kept: keptSeqs } = setUp(hold, 10, 100);
    await emit(bus, journal, 40);
    // Events 1–5 went (received); 6–40 stay though maxEvents is 10.
    expect((await keptSeqs())[0]).toBe(6);
    expect(dropped).toEqual([]);
    received = 40;
    await emit(bus, journal, 2);
    const kept = await keptSeqs();
    expect(kept.length).toBeLessThanOrEqual(12);
    expect(kept.at(-1)).toBe(42);
  });

  it('past maxEvents + holdMax drops the oldest all the same, handing them to the hold first', async () => {
    const dropped: VigilEvent[] = [];
    const hold: JournalHold = {
      keepAfter: () => 0,
      receivedThrough: () => 0,
      dropping: (events) => {
        dropped.push(...events);
        return Promise.resolve();
      },
    };
    const { bus, journal, kept: keptSeqs } = setUp(hold, 10, 20);
    await emit(bus, journal, 60);
    const kept = await keptSeqs();
    expect(kept.length).toBeLessThanOrEqual(31);
    expect(kept.at(-1)).toBe(60);
    // Every event gone was handed over, oldest first, none twice.
    const droppedSeqs = dropped.map((e) => e.seq);
    expect(droppedSeqs).toEqual(Array.from({ length: kept[0]! - 1 }, (_, i) => i + 1));
  });

  it('with entries of several events, keeps an entry a reader is partway into and hands over only what it lacks', async () => {
    let received = 0;
    const dropped: VigilEvent[] = [];
    const hold: JournalHold = {
      keepAfter: () => received,
      receivedThrough: () => received,
      dropping: (events) => {
        dropped.push(...events);
        return Promise.resolve();
      },
    };
    // maxEvents 100 flushes every 10 events: entries of 10 (1–10, 11–20, …).
    const { bus, journal } = setUp(hold, 100, 20);
    const stored = (): Promise<number[]> => allSeqs(journal);
    // The reader has 25: entries 1–10 and 11–20 are free, 21–30 is not (it lacks 26–30).
    received = 25;
    for (let i = 0; i < 130; i += 1) bus.emit('checkpoint.failed', { reason: `r${i}` });
    await journal.flush();
    expect((await stored())[0]).toBe(21);
    expect(dropped).toEqual([]);
    // Past maxEvents + holdMax (120): the oldest entries go all the same; the reader gets 26 onwards of them.
    for (let i = 0; i < 20; i += 1) bus.emit('checkpoint.failed', { reason: `s${i}` });
    await journal.flush();
    const first = (await stored())[0]!;
    expect(first).toBeGreaterThan(21);
    expect(dropped.map((event) => event.seq)).toEqual(Array.from({ length: first - 26 }, (_, i) => 26 + i));
  });
});

/** Every seq the journal holds, oldest first, paged past its query cap. */
async function allSeqs(journal: EventJournal): Promise<number[]> {
  const all: number[] = [];
  for (let after = 0; ;) {
    const page = await journal.query({ after, limit: 100 });
    if (page.length === 0) return all;
    all.push(...page.map((event) => event.seq));
    after = page.at(-1)!.seq;
  }
}
