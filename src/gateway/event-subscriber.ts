/**
 * One event-feed subscriber (a WebSocket subscription or an SSE stream): replays from the journal after a seq, then
 * goes live without a gap or a repeat, behind a bounded buffer that drops (and says so) rather than grow.
 */
import type { Observable, Subscription } from 'rxjs';
import type { JournalQuery } from '../runtime/facade/events.facade.js';
import { typeMatcher } from '../events/event-filter.js';
import type { VigilEvent } from '../protocol/events.schema.js';
import { namedLiveTypes, type LiveEvent } from '../protocol/live-events.schema.js';

/** Where a subscriber's frames go (text for a socket; events themselves in-process); one sink may be shared by several subscribers (one WebSocket). */
export interface FeedSink<F = string> {
  /** Bytes written but not yet handed to the OS (ws `bufferedAmount`, an HTTP response's `writableLength`). */
  bufferedAmount(): number;
  /** Writes one frame; the owner calls `pump()` on its subscribers whenever a write completes. */
  write(frame: F): void;
  /** Ends the connection: the subscriber fell behind past every bound. */
  disconnect(reason: string): void;
}

/** How events and drop notices become frames (JSON-RPC notifications or SSE messages). */
export interface FeedFormat<F = string> {
  event(event: VigilEvent): F;
  dropped(notice: DroppedRange): F;
  /** A live-only event: the same frame as an event's, without a seq. */
  live(event: LiveEvent): F;
}

/** The events a subscriber missed because it fell behind. */
export interface DroppedRange {
  count: number;
  firstSeq: number;
  lastSeq: number;
}

/** Limits and sources of one subscriber. */
export interface SubscriberOptions<F = string> {
  /** The live bus. */
  live$: Observable<VigilEvent>;
  /** Live-only events (no seq, never journaled), delivered only when `types` names their type exactly. */
  liveOnly$?: Observable<LiveEvent>;
  /** Reads the persisted journal (`runtime.history`). */
  history: (query: JournalQuery) => Promise<VigilEvent[]>;
  types?: readonly string[] | undefined;
  /** Replay the journal after this seq before going live; undefined: live only. */
  after?: number | undefined;
  /** For a live-only subscriber: the newest seq emitted before it began (its drop ranges and stats start there). */
  liveAfter?: number | undefined;
  /** Events held for a slow client (`VIGIL_SUBSCRIBER_BUFFER`); past it, events are dropped until it catches up. */
  bufferSize: number;
  /** Stop writing while the sink holds this many bytes not yet sent. */
  highWaterBytes: number;
  /** Past this many events dropped in one stretch, the client is disconnected instead. */
  maxDropped: number;
  sink: FeedSink<F>;
  format: FeedFormat<F>;
  /** Called once if the journal cannot be read for a replay (the feed then goes live from now). */
  onReplayError?: (err: unknown) => void;
  /** Called for every event dropped because this subscriber fell behind (the `vigil_events_dropped_total` metric). */
  onDropped?: (count: number) => void;
}

/** A subscriber's counters, for tests and metrics. */
export interface SubscriberStats {
  queued: number;
  delivered: number;
  droppedTotal: number;
  /** Drops in the current stretch, not yet announced. */
  droppedPending: number;
  lastSeq: number;
}

const REPLAY_PAGE = 500;

/** A bounded FIFO on a growable ring, so shift is O(1) even for large buffers. */
class Fifo<T> {
  private items: Array<T | undefined> = new Array<T | undefined>(16);
  private head = 0;
  length = 0;

  push(item: T): void {
    if (this.length === this.items.length) {
      const grown = new Array<T | undefined>(this.items.length * 2);
      for (let i = 0; i < this.length; i += 1) grown[i] = this.items[(this.head + i) % this.items.length];
      this.items = grown;
      this.head = 0;
    }
    this.items[(this.head + this.length) % this.items.length] = item;
    this.length += 1;
  }

  shift(): T | undefined {
    if (this.length === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.items.length;
    this.length -= 1;
    return item;
  }

  clear(): void {
    this.items = new Array<T | undefined>(16);
    this.head = 0;
    this.length = 0;
  }
}

/** One subscriber. Construct (live events are held from that moment), then `start()` once its id is on the wire. */
export class EventSubscriber<F = string> {
  private readonly options: SubscriberOptions<F>;
  private readonly matches: (type: string) => boolean;
  private readonly subscription: Subscription;
  private readonly liveOnlySubscription: Subscription | undefined;
  private readonly queue = new Fifo<VigilEvent>();
  // Live events that arrive while the journal is replayed; null once live.
  private hold: VigilEvent[] | null;
  private holdOverflowed = false;
  private lastSeq: number;
  private started = false;
  private closed = false;
  private dropping: DroppedRange | null = null;
  private delivered = 0;
  private droppedTotal = 0;
  private drainWaiter: (() => void) | null = null;

  constructor(options: SubscriberOptions<F>) {
    this.options = options;
    this.matches = typeMatcher(options.types);
    this.lastSeq = options.after ?? options.liveAfter ?? 0;
    this.hold = options.after === undefined ? null : [];
    // Subscribed before the replay's first read, so nothing emitted from now on can fall between journal and live.
    this.subscription = options.live$.subscribe((event) => this.onLive(event));
    const named = namedLiveTypes(options.types);
    this.liveOnlySubscription =
      named.size === 0
        ? undefined
        : options.liveOnly$?.subscribe((event) => {
            if (named.has(event.type)) this.onLiveOnly(event);
          });
  }

  /** Begins sending: the journal replay first (if `after` was given), then live events. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    if (this.hold === null) this.pump();
    // Not awaited: the replay pages on in the background; it never rejects (a failed read goes to onReplayError).
    else void this.replay();
  }

  /** Writes what the sink has room for; the owner calls it again whenever one of its writes completes. */
  pump(): void {
    if (!this.started || this.closed) return;
    const { sink, format, highWaterBytes } = this.options;
    while (this.queue.length > 0 && sink.bufferedAmount() < highWaterBytes) {
      sink.write(format.event(this.queue.shift()!));
      this.delivered += 1;
    }
    if (this.queue.length > 0) return;
    // Caught up: say once what was missed, then take events again.
    if (this.dropping !== null && sink.bufferedAmount() < highWaterBytes) {
      sink.write(format.dropped(this.dropping));
      this.dropping = null;
    }
    if (this.dropping === null && this.drainWaiter !== null) {
      const wake = this.drainWaiter;
      this.drainWaiter = null;
      wake();
    }
  }

  /** Stops listening and frees the buffer. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.subscription.unsubscribe();
    this.liveOnlySubscription?.unsubscribe();
    this.queue.clear();
    this.hold = null;
    this.drainWaiter?.();
  }

  /** Current counters. */
  stats(): SubscriberStats {
    return {
      queued: this.queue.length,
      delivered: this.delivered,
      droppedTotal: this.droppedTotal,
      droppedPending: this.dropping?.count ?? 0,
      lastSeq: this.lastSeq,
    };
  }

  private onLive(event: VigilEvent): void {
    if (this.closed || !this.matches(event.type)) return;
    if (this.hold !== null) {
      // The journal has these too: on overflow forget them and read the journal once more before going live.
      if (this.hold.length >= this.options.bufferSize) {
        this.hold = [];
        this.holdOverflowed = true;
      }
      this.hold.push(event);
      return;
    }
    this.enqueue(event);
  }

  /**
   * A live-only event goes out at once or not at all: never queued, so it can never overtake an event queued before
   * it, nor push one out of a full buffer. A subscriber replaying, behind or with a full socket misses it (the final
   * event it anticipates, such as `agent.reply`, carries the whole of it).
   */
  private onLiveOnly(event: LiveEvent): void {
    const { sink, format, highWaterBytes } = this.options;
    if (!this.started || this.closed || this.hold !== null || this.queue.length > 0 || this.dropping !== null) return;
    if (sink.bufferedAmount() >= highWaterBytes) return;
    sink.write(format.live(event));
  }

  // The bus delivers in strictly increasing seq (`PublicationOrder`) and the journal reads only what it delivered, so
  // a seq at or below the last one sent can only be the overlap of a replayed page and the events held meanwhile.
  private enqueue(event: VigilEvent): void {
    if (event.seq <= this.lastSeq) return;
    this.lastSeq = event.seq;
    if (this.dropping !== null || this.queue.length >= this.options.bufferSize) {
      this.drop(event.seq);
      return;
    }
    this.queue.push(event);
    this.pump();
  }

  private drop(seq: number): void {
    this.droppedTotal += 1;
    this.options.onDropped?.(1);
    if (this.dropping === null) this.dropping = { count: 1, firstSeq: seq, lastSeq: seq };
    else {
      this.dropping.count += 1;
      this.dropping.lastSeq = seq;
    }
    if (this.dropping.count > this.options.maxDropped) {
      this.options.sink.disconnect(`event subscriber too slow: over ${this.options.maxDropped} events dropped`);
      this.close();
    }
  }

  private async replay(): Promise<void> {
    try {
      for (;;) {
        // A page never exceeds the buffer, and the next is read only once the client took this one: nothing drops.
        const limit = Math.min(REPLAY_PAGE, this.options.bufferSize);
        const page = await this.options.history({ types: this.options.types, after: this.lastSeq, limit });
        if (this.closed) return;
        for (const event of page) this.enqueue(event);
        if (page.length === limit) {
          await this.drained();
          continue;
        }
        // Everything emitted before that read is in the page; everything after it is held. Join them, then go live.
        if (this.holdOverflowed) {
          this.holdOverflowed = false;
          continue;
        }
        const held = this.hold ?? [];
        this.hold = null;
        for (const event of held) this.enqueue(event);
        return;
      }
    } catch (err) {
      this.options.onReplayError?.(err);
      const held = this.hold ?? [];
      this.hold = null;
      for (const event of held) this.enqueue(event);
    }
  }

  private drained(): Promise<void> {
    if (this.closed || (this.queue.length === 0 && this.dropping === null)) return Promise.resolve();
    return new Promise((resolve) => (this.drainWaiter = resolve));
  }
}
