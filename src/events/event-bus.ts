/** The RxJS event bus: every part emits typed events here; gateway, logs and metrics subscribe to `events$`. */
// One RxJS module each instead of the package index, which loads all of RxJS (~220 modules) at start-up.
import type { Observable } from 'rxjs';
import { config as rxjsConfig } from 'rxjs/internal/config';
import { Subject } from 'rxjs/internal/Subject';
import type { Clock } from '../shared/clock.js';
import { ofTypes } from './event-filter.js';
import type { EventPayload, EventType, VigilEvent, VigilEventOf } from '../protocol/events.schema.js';

/** Where the bus gets the next `seq`; the daemon backs it with a persisted counter so seq grows across restarts. */
export interface SeqSource {
  next(): number;
}

/** A seq source counting up from `start` (in memory). */
export function counterSeq(start = 0): SeqSource {
  let seq = start;
  return { next: () => (seq += 1) };
}

/** Options for the bus: the clock for `at`, the current beat, and where seqs come from. */
export interface EventBusOptions {
  clock: Clock;
  currentBeat: () => number;
  seq?: SeqSource;
  /** Called when a subscriber throws; the bus itself never rethrows into `emit`. */
  onSubscriberError?: (err: unknown) => void;
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

/** The bus: `emit` stamps the envelope and fans out synchronously to every subscriber. */
export class EventBus {
  private readonly subject = new Subject<VigilEvent>();
  private readonly options: EventBusOptions;
  private readonly errorHandler: (err: unknown) => void;
  private seqSource: SeqSource;
  private currentBeat: () => number;

  /** Every event, in emission order. */
  readonly events$: Observable<VigilEvent>;

  constructor(options: EventBusOptions) {
    this.options = options;
    this.seqSource = options.seq ?? counterSeq();
    this.currentBeat = options.currentBeat;
    this.events$ = this.subject.asObservable();
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
    const event = this.stamp(type, payload);
    this.publish(event as VigilEvent);
    return event;
  }

  /**
   * Gives an event its envelope (seq, time, beat) without publishing it, so a caller can store it durably with the
   * fact it reports (a turn's ending) before anyone sees it; `publish` it afterwards, in seq order with the rest.
   */
  stamp<T extends EventType>(type: T, payload: EventPayload<T>): VigilEventOf<T> {
    return {
      seq: this.seqSource.next(),
      type,
      at: new Date(this.options.clock.now()).toISOString(),
      beat: this.currentBeat(),
      ...payload,
    } as VigilEventOf<T>;
  }

  /** Publishes an event made by `stamp`. */
  publish(event: VigilEvent): void {
    this.subject.next(event);
  }

  /** An observable of the events matching `patterns` (exact types or `prefix.*`). */
  select(patterns: readonly string[] | undefined): Observable<VigilEvent> {
    return this.events$.pipe(ofTypes(patterns));
  }

  /** Completes the stream; later emits reach nobody. */
  close(): void {
    subscriberErrorHandlers.delete(this.errorHandler);
    this.subject.complete();
  }
}
