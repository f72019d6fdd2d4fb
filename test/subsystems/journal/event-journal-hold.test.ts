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
});
