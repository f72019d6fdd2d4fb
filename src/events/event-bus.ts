/** The RxJS event bus: every part emits typed events here; gateway, logs and metrics subscribe to `events$`. */
// One RxJS module each instead of the package index, which loads all of RxJS (~220 modules) at start-up.
import { Observable } from 'rxjs/internal/Observable';
import { config as rxjsConfig } from 'rxjs/internal/config';
import { Subject } from 'rxjs/internal/Subject';
import { systemClock, type Clock } from '../shared/clock.js';
import { isoTime } from '../shared/iso-time.js';
import { ofTypes } from './event-filter.js';
import { PublicationOrder, type ReleaseOutcome } from './publication-order.js';
import type { EventPayload, EventType, VigilEvent, VigilEventOf } from '../protocol/events.schema.js';
import type { LiveEvent } from '../protocol/live-events.schema.js';

/** Where the bus gets the next `seq`; the daemon backs it with a persisted counter so seq grows across restarts. */
export interface SeqSource {
  next(): number;
  /** The last number issued (or the number the next one follows). */
  current(): number;
}

/** A seq source counting up from `start` (in memory). */
export function counterSeq(start = 0): SeqSource {
  let seq = start;
  return { next: () => (seq += 1), current: () => seq };
}

/**
 * How long an event stamped before its write may hold back the feed (default 10 s, far beyond any synced LevelDB
 * write on a working disk). Past it the events behind it go out; if the write lands later, its event is in the
 * journal (`events.history`) but is not delivered live, since subscribers are already past its seq.
 */
export const DEFAULT_PUBLICATION_HOLD_MS = 10_000;

/** Options for the bus: the clock for `at`, the current beat, and where seqs come from. */
export interface EventBusOptions {
  clock: Clock;
  currentBeat: () => number;
  seq?: SeqSource;
  /** Called when a subscriber throws; the bus itself never rethrows into `emit`. */
  onSubscriberError?: (err: unknown) => void;
  /** See `DEFAULT_PUBLICATION_HOLD_MS`. */
  publicationHoldMs?: number;
  /**
   * The timers of that hold (default: the system clock). Not `clock`: the hold bounds how long a disk write may take,
   * which is real time even when the agent's time is simulated and jumps ahead while the write is under way.
   */
  publicationClock?: Clock;
  /** Called when a stamped event held the feed past `publicationHoldMs` (`late: false`) and if it is published after that (`late: true`). */
  onPublicationStuck?: (info: { seq: number; type: string; late: boolean }) => void;
}

// RxJS catches a throwing subscriber and rethrows it on a timer, which would kill the process;
// route those reports to the buses' handlers instead, once per process.
const subscriberErrorHandlers = new Set<(err: unknown) => void>();
if (rxjsConfig.onUnhandledError === null) {
  rxjsConfig.onUnhandledError = (err) => {
    if (subscriberErrorHandlers.size === 0) console.error('vigil: event subscriber threw', err);
    for (const handler of subscriberErrorHandlers) handler(err);
  };
}

// A held event's timer must not keep a process alive that has nothing else to do.
const unrefSystemClock: Clock = {
  ...systemClock,
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
};

/**
 * The bus: `emit` stamps the envelope and fans out synchronously to every subscriber, in seq order. An event made by
 * `stamp` (to be written durably before anyone sees it) holds back every later event until it is `publish`ed or
 * `withdraw`n, so no subscriber ever sees a seq after a higher one (see `PublicationOrder`).
 */
export class EventBus {
  private readonly subject = new Subject<VigilEvent>();
  private readonly options: EventBusOptions;
  private readonly errorHandler: (err: unknown) => void;
  private readonly order = new PublicationOrder();
  private readonly holdTimers = new Map<number, { handle: unknown; type: string }>();
  // Released events not yet handed out: a subscriber that emits gets its event delivered after the current one.
  private readonly outbox: VigilEvent[] = [];
  private delivering = false;
  private readonly publicationClock: Clock;
  private seqSource: SeqSource;
  private currentBeat: () => number;

  /** Every event, in emission order. */
  readonly events$: Observable<VigilEvent>;
  /** Live-only events (live-events.schema.ts): no seq, never journaled, not part of `events$`. */
  readonly liveEvents$: Observable<LiveEvent>;
  private readonly liveSubject = new Subject<LiveEvent>();
  private liveListeners = 0;

  constructor(options: EventBusOptions) {
    this.options = options;
    this.seqSource = options.seq ?? counterSeq();
    this.publicationClock = options.publicationClock ?? unrefSystemClock;
    this.currentBeat = options.currentBeat;
    this.events$ = this.subject.asObservable();
    this.liveEvents$ = new Observable<LiveEvent>((subscriber) => {
      this.liveListeners += 1;
      const inner = this.liveSubject.subscribe(subscriber);
      return () => {
        this.liveListeners -= 1;
        inner.unsubscribe();
      };
    });
    this.errorHandler = options.onSubscriberError ?? (() => {});
    subscriberErrorHandlers.add(this.errorHandler);
  }

  /** Replaces where `beat` comes from (the runtime that publishes on this bus). */
  useBeatSource(currentBeat: () => number): void {
    this.currentBeat = currentBeat;
  }

  /** Replaces the seq source (used once at boot, after the persisted counter is read). */
  useSeq(source: SeqSource): void {
    this.seqSource = source;
  }

  /** Stamps and publishes one event; returns it. A throwing subscriber is reported, never propagated. */
  emit<T extends EventType>(type: T, payload: EventPayload<T>): VigilEventOf<T> {
    const event = this.envelope(type, payload);
    if (this.order.idle && !this.delivering) this.deliver([event as VigilEvent]);
    else this.release(this.order.publish(event as VigilEvent));
    return event;
  }

  /**
   * Hands a live-only event to whoever listens now, with its time and beat but no seq: nothing stores it, and a
   * subscriber that is not listening at this moment never gets it. A throwing subscriber is reported, never propagated.
   */
  emitLive<T extends LiveEvent['type']>(
    type: T,
    payload: Omit<Extract<LiveEvent, { type: T }>, 'type' | 'at' | 'beat'>,
  ): void {
    if (this.liveListeners === 0) return;
    this.liveSubject.next({
      type,
      at: isoTime(this.options.clock.now()),
      beat: this.currentBeat(),
      ...payload,
    });
  }

  /** Whether anyone listens to live-only events now (a thinker streams a reply only when someone would see it). */
  hasLiveListeners(): boolean {
    return this.liveListeners > 0;
  }

  /**
   * Gives an event its envelope (seq, time, beat) without publishing it, so a caller can store it durably with the
   * fact it reports (a turn's ending) before anyone sees it. Until it is `publish`ed (after the write) or
   * `withdraw`n (the write failed), every later event waits behind it, for at most `publicationHoldMs`.
   */
  stamp<T extends EventType>(type: T, payload: EventPayload<T>): VigilEventOf<T> {
    const event = this.envelope(type, payload);
    this.order.stamped(event.seq);
    const holdMs = this.options.publicationHoldMs ?? DEFAULT_PUBLICATION_HOLD_MS;
    const handle = this.publicationClock.setTimeout(() => this.expire(event.seq), holdMs);
    this.holdTimers.set(event.seq, { handle, type });
    return event;
  }

  /** Publishes an event made by `stamp` (or re-publishes nothing: an event is delivered once). */
  publish(event: VigilEvent): void {
    this.clearHold(event.seq);
    this.release(this.order.publish(event));
  }

  /** Says that stamped events will never be published (their write failed): the events behind them go out. */
  withdraw(...events: readonly VigilEvent[]): void {
    for (const event of events) {
      this.clearHold(event.seq);
      this.deliver(this.order.withdraw(event.seq));
    }
  }

  /**
   * Every event with a seq up to this one has been delivered (or will never be): a journal read capped here, made
   * after subscribing, joins the live feed without a gap. Events above it may already be on disk (a synced write
   * whose event is not yet published) and must not be read ahead of the feed.
   */
  settledThrough(): number {
    const floor = this.order.floor();
    const pending = this.outbox[0]?.seq;
    const lowest = floor === undefined ? pending : pending === undefined ? floor : Math.min(floor, pending);
    return lowest === undefined ? this.seqSource.current() : lowest - 1;
  }

  /** An observable of the events matching `patterns` (exact types or `prefix.*`). */
  select(patterns: readonly string[] | undefined): Observable<VigilEvent> {
    return this.events$.pipe(ofTypes(patterns));
  }

  /** Completes the stream; later emits reach nobody. */
  close(): void {
    for (const seq of [...this.holdTimers.keys()]) this.clearHold(seq);
    subscriberErrorHandlers.delete(this.errorHandler);
    this.subject.complete();
    this.liveSubject.complete();
  }

  private envelope<T extends EventType>(type: T, payload: EventPayload<T>): VigilEventOf<T> {
    return {
      seq: this.seqSource.next(),
      type,
      at: isoTime(this.options.clock.now()),
      beat: this.currentBeat(),
      ...payload,
    } as VigilEventOf<T>;
  }

  private release(outcome: ReleaseOutcome): void {
    if (outcome.kind === 'released') {
      this.deliver(outcome.events);
      return;
    }
    const { seq, type } = outcome.event;
    this.options.onPublicationStuck?.({ seq, type, late: true });
  }

  private expire(seq: number): void {
    const hold = this.holdTimers.get(seq);
    if (hold === undefined) return;
    this.holdTimers.delete(seq);
    this.options.onPublicationStuck?.({ seq, type: hold.type, late: false });
    this.deliver(this.order.expire(seq));
  }

  private clearHold(seq: number): void {
    const hold = this.holdTimers.get(seq);
    if (hold === undefined) return;
    this.holdTimers.delete(seq);
    this.publicationClock.clearTimeout(hold.handle);
  }

  private deliver(events: readonly VigilEvent[]): void {
    if (events.length === 0) return;
    this.outbox.push(...events);
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let next = this.outbox.shift(); next !== undefined; next = this.outbox.shift()) this.subject.next(next);
    } finally {
      this.delivering = false;
    }
  }
}
