/** The persisted event journal: the newest N events in LevelDB, so a subscriber can resume after a seq, across restarts. */
import type { Subscription } from 'rxjs';
import { SUBLEVELS, type VigilBatchOp, type VigilDb } from '../store/vigil-db.js';
import type { EventBus } from '../../events/event-bus.js';
import { typeMatcher } from '../../events/event-filter.js';
import type { VigilEvent } from '../../protocol/events.schema.js';
import type { Clock } from '../../shared/clock.js';

// Seqs are safe integers: 16 digits zero-padded sort numerically as strings.
const SEQ_WIDTH = 16;
const seqKey = (seq: number): string => String(Math.max(0, Math.floor(seq))).padStart(SEQ_WIDTH, '0');

/**
 * What a store needs of the journal to write an event atomically with the fact it reports (a turn's ending, a tool
 * call's intent or result): the event's own batch operation. Stamp the event, write it with the fact, then publish.
 */
export interface EventRecorder {
  entryOp(event: VigilEvent): VigilBatchOp;
}

/**
 * Readers that must not lose events to the prune (the webhook outbox): the journal keeps what they have not received
 * past `maxEvents`, up to a cap, and hands over what it must delete all the same before deleting it.
 */
export interface JournalHold {
  /** The lowest seq the readers that hold events (enabled endpoints) have received; null when none holds any. */
  keepAfter(): number | null;
  /** The lowest seq any reader (held or not) has received; null when there is none. */
  receivedThrough(): number | null;
  /** Events about to be deleted (oldest first) that some reader has not received; awaited before the deletion. */
  dropping(events: readonly VigilEvent[]): Promise<void>;
}

/** Journal settings. */
export interface EventJournalOptions {
  /** How many of the newest events are kept (default 10,000). */
  maxEvents?: number;
  /** Called when a batch write fails; the journal drops that batch and goes on. */
  onWriteError?: (err: unknown) => void;
  /** How long events may wait to be written together (default 50 ms); a query or detach writes them at once. */
  flushIntervalMs?: number;
  /** The timers that run the flush interval (default Node's, unreferenced); a simulation passes its clock to replay exactly. */
  timers?: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
}

/** Node's own timers, unreferenced: a pending flush never keeps the process alive. */
const NODE_TIMERS: Pick<Clock, 'setTimeout' | 'clearTimeout'> = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

// This many queued events are written at once, without waiting for the interval.
const FLUSH_AT_EVENTS = 512;
const UTF8 = { keyEncoding: 'utf8', valueEncoding: 'utf8' } as const;

/** A query over the journal. */
export interface JournalQuery {
  /** Only events whose type matches (exact or `prefix.*`). */
  types?: readonly string[];
  /** Only events with a seq greater than this (paging forward, oldest first). */
  after?: number;
  /** At most this many (default 100). */
  limit?: number;
}

/**
 * Writes every bus event to LevelDB in batches (every `flushIntervalMs` or 512 events, not synced: what was written
 * survives a killed process, and the heartbeat never waits on it), prunes to the newest `maxEvents`, and answers
 * history queries. Batching is what keeps an idle beat cheap: one LevelDB batch per interval, not per beat.
 */
export class EventJournal implements EventRecorder {
  private readonly events;
  private readonly maxEvents: number;
  private readonly onWriteError: (err: unknown) => void;
  private queue: VigilEvent[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private timer: unknown;
  private readonly flushIntervalMs: number;
  private readonly timers: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  private subscription: Subscription | undefined;
  // Where the journal's reads stop: the bus's settled seq (see `EventBus.settledThrough`); none when detached.
  private settledThrough: () => number = () => Number.MAX_SAFE_INTEGER;
  // The first write of a run prunes: a run shorter than one prune step (a daemon restarted twice a day writes fewer
  // events than that between restarts) would otherwise never prune, and the journal would grow without bound.
  private sincePrune = Number.POSITIVE_INFINITY;
  private prunedUpTo: string | undefined;
  // Events in the journal: counted at the first prune of a run, then kept by the writes and prunes. Events written in
  // another store's batch (entryOp) are not counted, so the journal may hold a few more than maxEvents, never fewer.
  private held: number | undefined;
  private hold: JournalHold | undefined;
  private holdMax = 0;

  constructor(
    private readonly db: VigilDb,
    options: EventJournalOptions = {},
  ) {
    this.events = db.sublevel<string, VigilEvent>(SUBLEVELS.eventJournal, { valueEncoding: 'json' });
    this.maxEvents = options.maxEvents ?? 10_000;
    this.onWriteError = options.onWriteError ?? (() => {});
    this.flushIntervalMs = options.flushIntervalMs ?? 50;
    this.timers = options.timers ?? NODE_TIMERS;
  }

  /**
   * Keeps events `hold`'s readers have not received beyond `maxEvents`, up to `holdMax` more; past that the oldest go
   * all the same, handed to `hold.dropping` first.
   */
  useHold(hold: JournalHold, holdMax: number): void {
    this.hold = hold;
    this.holdMax = Math.max(0, holdMax);
  }

  /** Starts journaling every event `bus` emits. */
  attach(bus: EventBus): void {
    this.subscription = bus.events$.subscribe((event) => this.enqueue(event));
    this.settledThrough = () => bus.settledThrough();
  }

  /** Stops journaling and writes what is queued. */
  async detach(): Promise<void> {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    await this.flush();
  }

  /** Resolves once every event received so far is written. */
  async flush(): Promise<void> {
    if (this.queue.length > 0) this.startFlush();
    await this.flushing;
  }

  /**
   * Events matching `query`, oldest first: with `after`, the first `limit` events after that seq; without it, the
   * newest `limit`. Events still queued for writing are included, so a caller never misses one. Only events the bus
   * has delivered by the time of the call are read: one written with its fact but not yet published (or one
   * published after the call) is left to the live feed, so a subscriber that replays and then goes live never sees
   * a seq before one it already has.
   */
  async query(query: JournalQuery = {}): Promise<VigilEvent[]> {
    const upTo = seqKey(this.settledThrough());
    await this.flush();
    const limit = Math.max(0, Math.min(query.limit ?? 100, this.maxEvents));
    if (limit === 0) return [];
    const matches = typeMatcher(query.types);
    const found: VigilEvent[] = [];
    if (query.after !== undefined) {
      for await (const event of this.events.values({ gt: seqKey(query.after), lte: upTo })) {
        if (!matches(event.type)) continue;
        found.push(event);
        if (found.length >= limit) break;
      }
      return found;
    }
    for await (const event of this.events.values({ reverse: true, lte: upTo })) {
      if (!matches(event.type)) continue;
      found.push(event);
      if (found.length >= limit) break;
    }
    return found.reverse();
  }

  /** The batch operation that stores `event` as the journal would, for writing it atomically with what it reports. */
  entryOp(event: VigilEvent): VigilBatchOp {
    return { type: 'put', sublevel: this.events, key: seqKey(event.seq), value: event };
  }

  /** The newest journaled seq the bus has delivered, or 0. */
  async lastSeq(): Promise<number> {
    const upTo = seqKey(this.settledThrough());
    await this.flush();
    for await (const key of this.events.keys({ reverse: true, limit: 1, lte: upTo })) return Number(key);
    return 0;
  }

  /**
   * Deletes all but the newest `maxEvents` events. By count, not by seq: seqs jump by a reserved block at each restart,
   * so "seq above newest − maxEvents" would drop a whole earlier run's events after every restart. The journal is
   * counted once a run; after that the count follows the writes, and a prune walks only the keys it deletes.
   */
  private async prune(): Promise<void> {
    this.held ??= (await this.events.keys().all()).length;
    const excess = this.held - this.maxEvents;
    if (excess <= 0) return;
    // From where the last prune stopped: a range from the start would walk every tombstone not yet compacted.
    const from = this.prunedUpTo === undefined ? {} : { gt: this.prunedUpTo };
    const candidates = await this.prunable(from, excess);
    const cut = candidates.at(-1);
    if (cut === undefined) return;
    await this.handOver(candidates, from);
    await this.events.clear({ ...from, lte: cut });
    this.prunedUpTo = cut;
    this.held -= candidates.length;
  }

  /**
   * The keys (oldest first, at most `excess`) the prune may delete: all of them without a hold; with one, those its
   * readers have received, or more when the journal is past `maxEvents + holdMax`. Only those are read: a journal
   * held for a dead endpoint would otherwise read every held key at each prune to delete none of them.
   */
  private async prunable(from: { gt?: string }, excess: number): Promise<string[]> {
    // In one read: an async step per key made the prune of a tenth of the journal cost every beat ~2 µs.
    const keepAfter = this.hold?.keepAfter() ?? null;
    if (keepAfter === null) return this.events.keys({ ...from, limit: excess }).all();
    const forced = Math.min(excess, Math.max(0, (this.held ?? 0) - this.maxEvents - this.holdMax));
    const free =
      from.gt !== undefined && Number(from.gt) >= keepAfter
        ? []
        : await this.events.keys({ ...from, lte: seqKey(keepAfter), limit: excess }).all();
    return free.length >= forced ? free : this.events.keys({ ...from, limit: forced }).all();
  }

  /** The events among `candidates` some reader of the hold has not received are handed to it before they go. */
  private async handOver(candidates: string[], from: { gt?: string }): Promise<void> {
    const hold = this.hold;
    const cut = candidates.at(-1);
    if (hold === undefined || cut === undefined) return;
    const received = hold.receivedThrough();
    if (received === null || Number(cut) <= received) return;
    const dropped = await this.events
      .values({ ...from, gt: seqKey(Math.max(received, Number(from.gt ?? -1))), lte: cut })
      .all();
    await hold.dropping(dropped);
  }

  private enqueue(event: VigilEvent): void {
    this.queue.push(event);
    if (this.queue.length >= FLUSH_AT_EVENTS) {
      this.startFlush();
      return;
    }
    if (this.timer !== undefined) return;
    // A real timer by default, not the agent's clock: this batches I/O and is not part of the agent's time.
    this.timer = this.timers.setTimeout(() => this.startFlush(), this.flushIntervalMs);
  }

  private startFlush(): void {
    if (this.timer !== undefined) {
      this.timers.clearTimeout(this.timer);
      this.timer = undefined;
    }
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    this.flushing = this.flushing.then(() => this.write(batch));
  }

  private async write(batch: VigilEvent[]): Promise<void> {
    try {
      // Encoded here and written on the root, as the sublevel would (its key prefix, JSON): every beat's event comes
      // this way, and the sublevel's per-operation layer was a fifth of the write's cost.
      await this.db.batch(
        batch.map((event) => ({
          type: 'put' as const,
          key: this.events.prefixKey(seqKey(event.seq), 'utf8'),
          value: JSON.stringify(event),
        })),
        UTF8,
      );
      this.sincePrune += batch.length;
      if (this.held !== undefined) this.held += batch.length;
      // Prune in steps of a tenth of the capacity, so the journal never holds more than 1.1 × maxEvents.
      if (this.sincePrune >= Math.max(1, Math.floor(this.maxEvents / 10))) {
        this.sincePrune = 0;
        await this.prune();
      }
    } catch (err) {
      this.onWriteError(err);
    }
  }
}
