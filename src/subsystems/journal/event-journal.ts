/** The persisted event journal: the newest N events in LevelDB, so a subscriber can resume after a seq, across restarts. */
import type { Subscription } from 'rxjs';
import { SUBLEVELS, type VigilBatchOp, type VigilDb } from '../store/vigil-db.js';
import type { EventBus } from '../../events/event-bus.js';
import { typeMatcher } from '../../events/event-filter.js';
import type { VigilEvent } from '../../protocol/events.schema.js';
import type { Clock } from '../../shared/clock.js';
import { collectBackward, collectForward, entryEvents, type JournalEntry, runsOf, seqKey } from './journal-entries.js';

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

// At most this many queued events are written at once, without waiting for the interval (fewer for a small journal,
// so that one entry is never a large part of it: the prune deletes whole entries).
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
 * history queries. Batching is what keeps an idle beat cheap: one LevelDB entry per interval (a JSON array of the
 * batch's events, see `journal-entries.ts`), not one per beat or per event.
 */
export class EventJournal implements EventRecorder {
  private readonly events;
  private readonly maxEvents: number;
  private readonly onWriteError: (err: unknown) => void;
  private readonly flushAt: number;
  private queue: VigilEvent[] = [];
  // Seqs of events handed out by `entryOp`: written with their fact, so the batch leaves them out when they come by.
  private readonly recorded = new Set<number>();
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
  // Events in the journal: counted at the first prune of a run, then kept by the writes and prunes (an event written
  // in another store's batch, by entryOp, is counted when the bus delivers it). The prune deletes whole entries, so
  // the journal may hold part of one entry more than maxEvents, never fewer.
  private held: number | undefined;
  // The size of each entry of more than one event this run wrote or counted; any other holds one (an event written with
  // its fact, or a journal written before batching). The prune counts by it, reading keys and not values.
  private readonly sizes = new Map<string, number>();
  private hold: JournalHold | undefined;
  private holdMax = 0;

  constructor(
    private readonly db: VigilDb,
    options: EventJournalOptions = {},
  ) {
    this.events = db.sublevel<string, JournalEntry>(SUBLEVELS.eventJournal, { valueEncoding: 'json' });
    this.maxEvents = options.maxEvents ?? 10_000;
    this.flushAt = Math.max(1, Math.min(FLUSH_AT_EVENTS, Math.floor(this.maxEvents / 10)));
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
    const filter = { after: query.after ?? -1, upTo: Number(upTo), matches: typeMatcher(query.types) };
    if (query.after === undefined)
      return collectBackward(this.events.values({ reverse: true, lte: upTo }), filter, limit);
    // From the entry holding the first seq wanted: entries never overlap, so no earlier one holds a later seq.
    const start = await this.entryHolding(query.after + 1);
    const range = start === undefined ? { lte: upTo } : { gte: start, lte: upTo };
    return collectForward(this.events.values(range), filter, limit);
  }

  /** The key of the entry that holds `seq` if any does: the greatest key at or below it. */
  private async entryHolding(seq: number): Promise<string | undefined> {
    for await (const key of this.events.keys({ reverse: true, limit: 1, lte: seqKey(seq) })) return key;
    return undefined;
  }

  /**
   * The batch operation that stores `event` as an entry of its own, for writing it atomically with what it reports.
   * The journal's own batch leaves it out when the bus delivers it (it is published only once that write is durable).
   */
  entryOp(event: VigilEvent): VigilBatchOp {
    this.recorded.add(event.seq);
    return { type: 'put', sublevel: this.events, key: seqKey(event.seq), value: [event] };
  }

  /** The newest journaled seq the bus has delivered, or 0. */
  async lastSeq(): Promise<number> {
    const upTo = seqKey(this.settledThrough());
    await this.flush();
    const filter = { after: -1, upTo: Number(upTo), matches: () => true };
    const newest = await collectBackward(this.events.values({ reverse: true, lte: upTo }), filter, 1);
    return newest[0]?.seq ?? 0;
  }

  /**
   * Deletes all but the newest `maxEvents` events, in whole entries (one straddling the bound is kept). By count, not
   * by seq: seqs jump by a reserved block at each restart, so "seq above newest − maxEvents" would drop a whole earlier
   * run's events after every restart. The journal is counted once a run; after that the count follows the writes, and
   * a prune reads only the keys it deletes (an entry's size is known: see `sizes`).
   */
  private async prune(): Promise<void> {
    this.held ??= await this.count();
    const excess = this.held - this.maxEvents;
    if (excess <= 0) return;
    // From where the last prune stopped: a range from the start would walk every tombstone not yet compacted.
    const from = this.prunedUpTo === undefined ? {} : { gt: this.prunedUpTo };
    const keys = await this.prunable(from, excess);
    const cut = keys.at(-1);
    if (cut === undefined) return;
    await this.handOver(from, cut);
    await this.events.clear({ ...from, lte: cut });
    this.prunedUpTo = cut;
    for (const key of keys) {
      this.held -= this.sizeOf(key);
      this.sizes.delete(key);
    }
  }

  /** Counts the journal's events, learning the size of each entry of more than one. */
  private async count(): Promise<number> {
    let events = 0;
    for (const [key, entry] of await this.events.iterator().all()) {
      const size = entryEvents(entry).length;
      if (size > 1) this.sizes.set(key, size);
      events += size;
    }
    return events;
  }

  /** How many events the entry under `key` holds: one unless this run wrote or counted it larger. */
  private sizeOf(key: string): number {
    return this.sizes.get(key) ?? 1;
  }

  /**
   * The keys (oldest first, of entries holding at most `excess` events) the prune may delete: all of them without a
   * hold; with one, those whose events its readers have received, or more when the journal is past
   * `maxEvents + holdMax`. Only those are read: a journal held for a dead endpoint would otherwise read every held
   * key at each prune to delete none of them.
   */
  private async prunable(from: { gt?: string }, excess: number): Promise<string[]> {
    // In one read: an async step per key made the prune of a tenth of the journal cost every beat ~2 µs.
    const keepAfter = this.hold?.keepAfter() ?? null;
    const forced =
      keepAfter === null ? excess : Math.min(excess, Math.max(0, (this.held ?? 0) - this.maxEvents - this.holdMax));
    if (forced === 0 && keepAfter !== null && from.gt !== undefined && Number(from.gt) >= keepAfter) return [];
    const range = forced > 0 || keepAfter === null ? from : { ...from, lte: seqKey(keepAfter) };
    const taken: string[] = [];
    let events = 0;
    // Every entry holds at least one event: `excess` keys are all the prune could take.
    for (const key of await this.events.keys({ ...range, limit: excess }).all()) {
      const size = this.sizeOf(key);
      // An entry's seqs run on without a gap from its key (see `runsOf`).
      const free = keepAfter === null || Number(key) + size - 1 <= keepAfter;
      if (events + size > excess || (!free && events + size > forced)) break;
      events += size;
      taken.push(key);
    }
    return taken;
  }

  /** The events up to `cut` some reader of the hold has not received are handed to it before they go. */
  private async handOver(from: { gt?: string }, cut: string): Promise<void> {
    const hold = this.hold;
    const received = hold?.receivedThrough() ?? null;
    if (hold === undefined || received === null || Number(cut) + this.sizeOf(cut) - 1 <= received) return;
    // From the entry holding the first seq not received, or where the prune starts if that is older.
    const start = await this.entryHolding(received + 1);
    const lower = start === undefined || (from.gt !== undefined && start <= from.gt) ? from : { gte: start };
    const entries = await this.events.values({ ...lower, lte: cut }).all();
    await hold.dropping(entries.flatMap((entry) => entryEvents(entry).filter((event) => event.seq > received)));
  }

  private enqueue(event: VigilEvent): void {
    if (this.recorded.size > 0 && this.writtenAlongside(event.seq)) return;
    this.queue.push(event);
    if (this.queue.length >= this.flushAt) {
      this.startFlush();
      return;
    }
    if (this.timer !== undefined) return;
    // A real timer by default, not the agent's clock: this batches I/O and is not part of the agent's time.
    this.timer = this.timers.setTimeout(() => this.startFlush(), this.flushIntervalMs);
  }

  /**
   * Whether the event with this seq was written by `entryOp` (it is then counted, not queued). Recorded seqs below it
   * will never come by (their write failed, or they were published too late for the feed) and are forgotten.
   */
  private writtenAlongside(seq: number): boolean {
    for (const recorded of this.recorded) if (recorded < seq) this.recorded.delete(recorded);
    if (!this.recorded.delete(seq)) return false;
    this.sincePrune += 1;
    if (this.held !== undefined) this.held += 1;
    return true;
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
      // this way, and the sublevel's per-operation layer was a fifth of the write's cost. One entry per run of seqs.
      const runs = runsOf(batch).map((run) => ({ key: seqKey(run[0]!.seq), run }));
      await this.db.batch(
        runs.map(({ key, run }) => ({
          type: 'put' as const,
          key: this.events.prefixKey(key, 'utf8'),
          value: JSON.stringify(run),
        })),
        UTF8,
      );
      for (const { key, run } of runs) if (run.length > 1) this.sizes.set(key, run.length);
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
