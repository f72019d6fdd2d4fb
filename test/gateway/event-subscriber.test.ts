import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { EventSubscriber, type FeedSink } from '../../src/gateway/event-subscriber.js';
import type { JournalQuery } from '../../src/subsystems/journal/event-journal.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import type { LiveEvent } from '../../src/protocol/live-events.schema.js';

const event = (seq: number, type = 'heartbeat.beat'): VigilEvent =>
  ({
    seq,
    type,
    at: '2026-01-01T00:00:00.000Z',
    beat: seq,
    beatCount: seq,
    intervalMs: 1000,
    phaseMs: { sense: 0, think: 0, integrate: 0 },
  }) as VigilEvent;

/** A sink whose socket can be stalled: while stalled it reports a full buffer; `flush` drains it. */
class FakeSink implements FeedSink {
  frames: string[] = [];
  stalled = false;
  disconnected: string | undefined;
  bufferedAmount(): number {
    return this.stalled ? 1_000_000 : 0;
  }
  write(frame: string): void {
    this.frames.push(frame);
  }
  disconnect(reason: string): void {
    this.disconnected = reason;
  }
  seqs(): number[] {
    return this.frames.filter((f) => f.startsWith('E')).map((f) => Number(f.slice(1)));
  }
  notices(): string[] {
    return this.frames.filter((f) => f.startsWith('D'));
  }
}

function setup(
  options: { journal?: VigilEvent[]; after?: number; bufferSize?: number; maxDropped?: number; types?: string[] } = {},
) {
  const live = new Subject<VigilEvent>();
  const liveOnly = new Subject<LiveEvent>();
  const journal = options.journal ?? [];
  const queries: JournalQuery[] = [];
  const sink = new FakeSink();
  let onQuery: (() => void) | undefined;
  const subscriber = new EventSubscriber({
    live$: live,
    liveOnly$: liveOnly,
    history: async (query) => {
      queries.push(query);
      const found = journal.filter((e) => e.seq > (query.after ?? 0)).slice(0, query.limit);
      onQuery?.();
      return found;
    },
    after: options.after,
    types: options.types,
    bufferSize: options.bufferSize ?? 10,
    highWaterBytes: 100,
    maxDropped: options.maxDropped ?? 1000,
    sink,
    format: {
      event: (e) => `E${e.seq}`,
      dropped: (d) => `D${d.count}:${d.firstSeq}-${d.lastSeq}`,
      live: (e) => `L${e.type === 'agent.reply_delta' ? e.text : ''}`,
    },
  });
  const emit = (seq: number, type?: string) => {
    const e = event(seq, type);
    journal.push(e);
    live.next(e);
  };
  const delta = (text: string) =>
    liveOnly.next({ type: 'agent.reply_delta', at: '2026-01-01T00:00:00.000Z', beat: 1, turnId: 't-1', text });
  return { live, journal, queries, sink, subscriber, emit, delta, onQueryDo: (fn: () => void) => (onQuery = fn) };
}

const ticks = async (n = 5) => {
  for (let i = 0; i < n; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

describe('EventSubscriber', () => {
  it('holds live events until started, then sends them in order', () => {
    const { subscriber, sink, emit } = setup();
    emit(1);
    emit(2);
    expect(sink.frames).toEqual([]);
    subscriber.start();
    emit(3);
    expect(sink.seqs()).toEqual([1, 2, 3]);
  });

  it('keeps only the matching types', () => {
    const { subscriber, sink, emit } = setup({ types: ['checkpoint.*'] });
    subscriber.start();
    emit(1);
    emit(2, 'checkpoint.created');
    emit(3, 'agent.reply');
    emit(4, 'checkpoint.failed');
    expect(sink.seqs()).toEqual([2, 4]);
  });

  it('sends a live-only event only to a subscriber naming its type exactly, at once and in place', () => {
    const named = setup({ types: ['agent.reply_delta', 'agent.reply'] });
    const prefixed = setup({ types: ['agent.*'] });
    const everything = setup();
    for (const s of [named, prefixed, everything]) s.subscriber.start();
    for (const s of [named, prefixed, everything]) {
      s.delta('Hel');
      s.delta('lo');
      s.emit(1, 'agent.reply');
    }
    expect(named.sink.frames).toEqual(['LHel', 'Llo', 'E1']);
    expect(prefixed.sink.frames).toEqual(['E1']);
    expect(everything.sink.frames).toEqual(['E1']);
  });

  it('drops a live-only event rather than queue it behind events or into a stalled socket', () => {
    const { subscriber, sink, emit, delta } = setup({ types: ['agent.reply_delta', 'heartbeat.beat'] });
    delta('before start');
    subscriber.start();
    sink.stalled = true;
    emit(1);
    delta('while stalled');
    sink.stalled = false;
    delta('behind a queued event');
    subscriber.pump();
    delta('caught up');
    expect(sink.frames).toEqual(['E1', 'Lcaught up']);
  });

  it('buffers at most bufferSize events for a stalled sink, drops the rest and announces one range when it catches up', () => {
    const { subscriber, sink, emit } = setup({ bufferSize: 10, maxDropped: 100_000 });
    subscriber.start();
    emit(1);
    sink.stalled = true;
    for (let seq = 2; seq <= 10_001; seq += 1) emit(seq);
    expect(subscriber.stats()).toMatchObject({ queued: 10, droppedPending: 9990, droppedTotal: 9990 });
    sink.stalled = false;
    subscriber.pump();
    expect(sink.seqs()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(sink.notices()).toEqual(['D9990:12-10001']);
    emit(10_002);
    expect(sink.seqs().at(-1)).toBe(10_002);
    expect(subscriber.stats()).toMatchObject({ queued: 0, droppedPending: 0, droppedTotal: 9990, delivered: 12 });
  });

  it('disconnects a subscriber that drops more than maxDropped in one stretch, and lets go of its buffer', () => {
    const { subscriber, sink, emit } = setup({ bufferSize: 10, maxDropped: 50 });
    subscriber.start();
    sink.stalled = true;
    for (let seq = 1; seq <= 100; seq += 1) emit(seq);
    expect(sink.disconnected).toMatch(/too slow/);
    expect(subscriber.stats().queued).toBe(0);
  });

  it('replays the journal after `after` in pages no bigger than the buffer, then goes live without a gap or a repeat', async () => {
    const journal = Array.from({ length: 35 }, (_, i) => event(i + 1));
    const { subscriber, sink, emit, queries, onQueryDo } = setup({ journal, after: 4, bufferSize: 10 });
    // Live events land while the journal is being read: they are in both, and must come out once.
    let next = 36;
    onQueryDo(() => emit(next++));
    subscriber.start();
    await ticks(20);
    const seqs = sink.seqs();
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 5));
    expect(seqs.at(-1)).toBe(next - 1);
    expect(queries.every((q) => q.limit === 10)).toBe(true);
    emit(next);
    expect(sink.seqs().at(-1)).toBe(next);
  });

  it('reads the journal again when live events overflowed its hold during a replay', async () => {
    const journal = Array.from({ length: 3 }, (_, i) => event(i + 1));
    const { subscriber, sink, emit, onQueryDo } = setup({ journal, after: 0, bufferSize: 10 });
    let next = 4;
    let burst = true;
    onQueryDo(() => {
      if (!burst) return;
      burst = false;
      for (let i = 0; i < 25; i += 1) emit(next++);
    });
    subscriber.start();
    await ticks(20);
    expect(sink.seqs()).toEqual(Array.from({ length: next - 1 }, (_, i) => i + 1));
  });

  it('sends nothing after close', () => {
    const { subscriber, sink, emit } = setup();
    subscriber.start();
    emit(1);
    subscriber.close();
    emit(2);
    expect(sink.seqs()).toEqual([1]);
  });
});
