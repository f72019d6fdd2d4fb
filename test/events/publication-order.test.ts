/**
 * Ordered publication: an event stamped before its synced write holds back every later event until it is published
 * or withdrawn, for at most the hold limit; any interleaving of stamps, emits, publications and withdrawals reaches
 * every subscriber in strictly increasing seq, each event once; journal reads stop below what is still in flight.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { counterSeq, EventBus } from '../../src/events/event-bus.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';

function makeBus(holdMs = 1000) {
  const clock = createSimulatedClock(Date.parse('2026-05-01T12:00:00Z'));
  const stuck: Array<{ seq: number; late: boolean }> = [];
  const bus = new EventBus({
    clock,
    currentBeat: () => 1,
    seq: counterSeq(100),
    publicationHoldMs: holdMs,
    publicationClock: clock,
    onPublicationStuck: ({ seq, late }) => stuck.push({ seq, late }),
  });
  const seen: VigilEvent[] = [];
  bus.events$.subscribe((event) => seen.push(event));
  return { bus, clock, seen, stuck, seqs: () => seen.map((event) => event.seq) };
}

describe('ordered publication on the bus', () => {
  it('holds events emitted after a stamp until the stamped event is published, then sends them in seq order', () => {
    const { bus, seqs } = makeBus();
    const reply = bus.stamp('agent.reply', { turnId: 't1', text: 'hi' });
    bus.emit('checkpoint.failed', { reason: 'a' });
    bus.emit('checkpoint.failed', { reason: 'b' });
    expect(seqs()).toEqual([]);
    expect(bus.settledThrough()).toBe(100);
    bus.publish(reply);
    expect(seqs()).toEqual([101, 102, 103]);
    expect(bus.settledThrough()).toBe(103);
  });

  it('lets the events behind a withdrawn stamp go at once, and never sends the withdrawn one', () => {
    const { bus, seqs } = makeBus();
    const first = bus.stamp('agent.reply', { turnId: 't1', text: 'one' });
    const second = bus.stamp('agent.reply', { turnId: 't2', text: 'two' });
    bus.emit('checkpoint.failed', { reason: 'a' });
    bus.publish(second);
    expect(seqs()).toEqual([]);
    bus.withdraw(first);
    expect(seqs()).toEqual([102, 103]);
  });

  it('stops waiting for a stuck write after the hold limit; if it lands later its event is not sent out of order', () => {
    const { bus, clock, seqs, stuck } = makeBus(1000);
    const stuckReply = bus.stamp('agent.reply', { turnId: 't1', text: 'late' });
    bus.emit('checkpoint.failed', { reason: 'a' });
    clock.increment(999);
    expect(seqs()).toEqual([]);
    clock.increment(1);
    expect(seqs()).toEqual([102]);
    expect(stuck).toEqual([{ seq: 101, late: false }]);
    bus.publish(stuckReply);
    bus.emit('checkpoint.failed', { reason: 'b' });
    expect(seqs()).toEqual([102, 103]);
    expect(stuck).toEqual([
      { seq: 101, late: false },
      { seq: 101, late: true },
    ]);
  });

  it('delivers an event emitted by a subscriber after the one it is reacting to, to every subscriber', () => {
    const { bus, seqs } = makeBus();
    const second: number[] = [];
    bus.events$.subscribe((event) => {
      if (event.type === 'agent.reply') bus.emit('checkpoint.failed', { reason: 'reaction' });
    });
    bus.events$.subscribe((event) => second.push(event.seq));
    bus.emit('agent.reply', { turnId: 't', text: 'x' });
    expect(seqs()).toEqual([101, 102]);
    expect(second).toEqual([101, 102]);
  });

  // One step of a random interleaving: emit a plain event, stamp one, or publish / withdraw a stamped one.
  const step = fc.oneof(
    fc.constant({ kind: 'emit' as const }),
    fc.constant({ kind: 'stamp' as const }),
    fc.record({ kind: fc.constant('publish' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('withdraw' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 1, max: 600 }) }),
  );

  it('property: any interleaving reaches subscribers in strictly increasing seq, each event at most once, and all of them once settled', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const { bus, clock, seen, stuck } = makeBus(1000);
        const open: VigilEvent[] = [];
        const withdrawn = new Set<number>();
        const emitted: number[] = [];
        for (const s of steps) {
          if (s.kind === 'emit') emitted.push(bus.emit('checkpoint.failed', { reason: 'x' }).seq);
          else if (s.kind === 'stamp') open.push(bus.stamp('agent.reply', { turnId: 't', text: 'x' }));
          else if (s.kind === 'wait') clock.increment(s.ms);
          else if (open.length > 0) {
            const [event] = open.splice(s.pick % open.length, 1);
            if (s.kind === 'publish') {
              bus.publish(event!);
              emitted.push(event!.seq);
            } else {
              bus.withdraw(event!);
              withdrawn.add(event!.seq);
            }
          }
          const seqs = seen.map((event) => event.seq);
          for (let i = 1; i < seqs.length; i++) expect(seqs[i]!).toBeGreaterThan(seqs[i - 1]!);
          // Everything at or below the settled seq was delivered (or will never be).
          const settled = bus.settledThrough();
          const late = new Set(stuck.map((s) => s.seq));
          for (const seq of emitted) if (seq <= settled && !late.has(seq)) expect(seqs).toContain(seq);
          for (const event of open) expect(event.seq > settled || late.has(event.seq)).toBe(true);
        }
        // Once everything is published or withdrawn, every published event was delivered (unless it was late).
        for (const event of open.splice(0)) {
          bus.publish(event);
          emitted.push(event.seq);
        }
        const late = new Set(stuck.filter((s) => s.late).map((s) => s.seq));
        expect(seen.map((event) => event.seq)).toEqual(emitted.filter((seq) => !late.has(seq)).sort((a, b) => a - b));
        for (const seq of withdrawn) expect(seen.some((event) => event.seq === seq)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
