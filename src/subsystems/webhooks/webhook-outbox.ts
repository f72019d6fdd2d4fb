/**
 * The webhook outbox's delivery loop: the I/O host around the endpoint machine. One lane per endpoint
 * (`webhook-lane.ts`) reads the journal forward from its cursor, POSTs one event at a time, signed
 * (`webhook-attempt.ts`), and hands the outcome to the bookkeeping (`webhook-ledger.ts`), which stores it (cursor,
 * state, attempt): a state change in one synced write before the next event goes out, a plain delivery with the
 * store's next batch (see `WebhookStore`); a failure waits out the backoff on the injected clock. Nothing here is
 * awaited by a beat, a turn or the feed: the bus only wakes a lane.
 */
import { randomBytes } from 'node:crypto';
import type { VigilEvent } from '../../protocol/events.schema.js';
import type { WebhookAttempt, WebhookRecord } from '../../protocol/webhooks.schema.js';
import { silentLogger, type VigilLogger } from '../../shared/logger.js';
import { attemptOf, is2xx, outcomeName, postAttempt } from './webhook-attempt.js';
import { isEnabled, type EndpointInput } from './webhook-endpoint.machine.js';
import { webhookEventMatcher } from './webhook-event-match.js';
import { effectiveCursor, headEvent, newLane, rewind, wireOf, type Lane } from './webhook-lane.js';
import { WebhookLedger } from './webhook-ledger.js';
import type { WebhookOutboxOptions } from './webhook-outbox-options.js';
import { webhookBody } from './webhook-signing.js';

export type {
  WebhookEventSource,
  WebhookMetricsSink,
  WebhookNotifier,
  WebhookOutboxOptions,
  WebhookOutboxSettings,
  WebhookOutcome,
} from './webhook-outbox-options.js';

/** The outbox: lanes for every endpoint, woken by new events (`notify`) and by their backoff timers. */
export class WebhookOutbox {
  private readonly lanes = new Map<string, Lane>();
  private readonly ledger: WebhookLedger;
  private readonly pageSize: number;
  private readonly log: VigilLogger;
  private stopped = false;

  constructor(private readonly options: WebhookOutboxOptions) {
    this.ledger = new WebhookLedger(options);
    this.pageSize = options.settings.pageSize ?? 100;
    this.log = options.log ?? silentLogger;
  }

  /** Starts a lane for every stored endpoint: deliveries resume from each cursor (after a crash, too). */
  start(): void {
    this.stopped = false;
    for (const record of this.options.store.list()) this.kick(record.id);
  }

  /** Stops every lane: aborts attempts in flight (their events go out again after a restart), clears the timers. */
  async stop(): Promise<void> {
    this.stopped = true;
    const running: Array<Promise<void>> = [];
    for (const lane of this.lanes.values()) {
      this.options.clock.clearTimeout(lane.timer);
      lane.timer = undefined;
      lane.inflight?.abort();
      if (lane.running !== undefined) running.push(lane.running);
    }
    await Promise.all(running);
    await this.ledger.settle();
  }

  /** A new event was published: lanes idle for want of events, whose types it matches, look again. */
  notify(event: VigilEvent): void {
    if (this.stopped) return;
    // Every event of the runtime passes here, in the emitter's turn: a lane waiting out its backoff is passed over
    // before its types are matched.
    for (const lane of this.lanes.values()) {
      if (lane.timer !== undefined || !lane.matches(event)) continue;
      if (lane.active) lane.wakeAgain = true;
      else this.kick(lane.id);
    }
  }

  /** A new endpoint was stored: its lane starts. */
  added(record: WebhookRecord): void {
    this.kick(record.id);
  }

  /** `webhooks.remove`: the lane stops (an attempt in flight is aborted) and the record and attempts go. */
  async remove(id: string): Promise<void> {
    const lane = this.lanes.get(id);
    if (lane !== undefined) {
      this.options.clock.clearTimeout(lane.timer);
      lane.inflight?.abort();
      this.lanes.delete(id);
    }
    await this.ledger.mutate(id, async () => {
      await this.options.store.remove(id);
    });
    this.options.metrics?.webhookRemoved(id);
  }

  /** `webhooks.enable`: ok again, with a fresh retry window; deliveries resume at once. */
  async enable(id: string): Promise<void> {
    await this.ledger.change(id, { type: 'enabled', at: this.options.clock.now() });
    this.rewake(id);
  }

  /** `webhooks.redeliver`: the cursor goes back to `afterSeq` (never forward), and events after it go out again. */
  async redeliver(id: string, afterSeq: number): Promise<void> {
    await this.ledger.change(id, { type: 'redeliver', afterSeq, at: this.options.clock.now() }, undefined, () =>
      this.rewindLane(id),
    );
    this.rewake(id);
  }

  /** `webhooks.test`: a `webhook.test` event POSTed to endpoint `id` alone, now; the attempt, also logged. */
  async test(id: string, record: WebhookRecord): Promise<WebhookAttempt> {
    const at = this.options.clock.now();
    const event = {
      seq: 0,
      type: 'webhook.test',
      at: new Date(at).toISOString(),
      beat: this.options.beat?.() ?? 0,
      id,
    } as const satisfies VigilEvent;
    const body = webhookBody(event);
    const webhookId = `evt_test_${randomBytes(8).toString('hex')}`;
    // No signer of its own: the retry thread signs, or `signedRequest` makes one for this single attempt.
    const outcome = await postAttempt(this.options, { record, signer: undefined, webhookId, body, connection: 'cold' });
    const attempt = attemptOf(0, webhookId, 1, outcome);
    this.options.metrics?.webhookAttempt(id, outcomeName(outcome), outcome.ms / 1000);
    await this.options.store.recordAttempt(id, attempt);
    return attempt;
  }

  /**
   * The lowest seq every endpoint in `which` has received (or read past: events of other types need no delivery);
   * null when there is none. The journal keeps what enabled endpoints have not received (see `webhookJournalHold`).
   */
  receivedThrough(which: 'enabled' | 'all'): number | null {
    let lowest: number | null = null;
    for (const record of this.options.store.list()) {
      if (which === 'enabled' && !isEnabled(record)) continue;
      const through = effectiveCursor(this.lanes.get(record.id), record);
      if (lowest === null || through < lowest) lowest = through;
    }
    return lowest;
  }

  /**
   * The journal is about to delete `events` (oldest first) though some endpoint has not received them: each endpoint
   * they include events for gets `webhook.gap` and its cursor moves past them; never a silent loss.
   */
  async dropping(events: readonly VigilEvent[]): Promise<void> {
    const last = events.at(-1);
    if (last === undefined) return;
    for (const record of this.options.store.list()) {
      const cursor = effectiveCursor(this.lanes.get(record.id), record);
      if (cursor >= last.seq) continue;
      const lane = this.lanes.get(record.id);
      const matches = lane?.matches ?? webhookEventMatcher(record);
      const lost = events.filter((event) => event.seq > cursor && matches(event));
      await this.ledger.change(record.id, { type: 'skipped', throughSeq: last.seq }, undefined, () =>
        this.rewindLane(record.id),
      );
      const first = lost[0];
      const final = lost.at(-1);
      if (first !== undefined && final !== undefined)
        this.options.notifier.emit('webhook.gap', {
          id: record.id,
          fromSeq: first.seq,
          toSeq: final.seq,
          count: lost.length,
        });
      this.rewake(record.id);
    }
  }

  /** How many events of endpoint `record`'s types after its cursor the journal holds (read up to `cap`). */
  async backlog(record: WebhookRecord, cap = 100_000): Promise<number> {
    const matches = webhookEventMatcher(record);
    let after = record.deliveredSeq;
    let count = 0;
    while (count < cap) {
      const page = await this.options.events.read(after, record.types, 1000);
      count += page.filter(matches).length;
      const last = page.at(-1);
      if (last === undefined) break;
      after = last.seq;
    }
    this.options.metrics?.webhookBacklog(record.id, count);
    return count;
  }

  private lane(id: string, record: WebhookRecord): Lane {
    let lane = this.lanes.get(id);
    if (lane === undefined) {
      lane = newLane(record);
      this.lanes.set(id, lane);
    }
    return lane;
  }

  /**
   * The lane forgets what it read ahead: the cursor moved under it. Called in the same step as the stored move, so no
   * attempt begun before it advances the cursor past the move, and no read made before it is used after.
   */
  private rewindLane(id: string): void {
    const lane = this.lanes.get(id);
    if (lane !== undefined) rewind(lane);
  }

  /** Clears a waiting lane's timer and starts it again (after enable or redeliver: try now). */
  private rewake(id: string): void {
    const lane = this.lanes.get(id);
    if (lane !== undefined) {
      this.options.clock.clearTimeout(lane.timer);
      lane.timer = undefined;
    }
    this.kick(id);
  }

  private kick(id: string): void {
    if (this.stopped) return;
    const record = this.options.store.get(id);
    // A disabled endpoint's lane is not started only to find it disabled: each event of its types would otherwise cost
    // the emitter's turn a pump (an async call and its promises) per such endpoint, for as long as it stays disabled.
    if (record === undefined || !isEnabled(record)) return;
    const lane = this.lane(id, record);
    if (lane.active) {
      lane.wakeAgain = true;
      return;
    }
    lane.active = true;
    lane.running = this.pump(id, lane);
  }

  private async pump(id: string, lane: Lane): Promise<void> {
    // Never in the caller's turn: the bus's emit (a beat, a turn) only schedules this.
    await Promise.resolve();
    try {
      while (!this.stopped && this.lanes.get(id) === lane) {
        lane.wakeAgain = false;
        const record = this.options.store.get(id);
        if (record === undefined || !isEnabled(record)) return;
        const now = this.options.clock.now();
        if (record.nextAttemptAt !== undefined && record.nextAttemptAt > now) {
          this.arm(id, lane, record.nextAttemptAt - now);
          return;
        }
        const event = await headEvent(lane, record, {
          events: this.options.events,
          store: this.options.store,
          pageSize: this.pageSize,
        });
        if (event === undefined) {
          if (lane.wakeAgain) continue;
          return;
        }
        await this.attempt(id, lane, record, event);
      }
    } catch (err) {
      if (this.stopped) return;
      // A store fault: this lane stops here; the next event (or a restart) starts it again from the stored cursor.
      this.log.error({ err, webhook: id }, 'webhook delivery stopped on a store fault; it resumes with the next event');
    } finally {
      lane.active = false;
    }
  }

  private arm(id: string, lane: Lane, ms: number): void {
    lane.timer = this.options.clock.setTimeout(() => {
      lane.timer = undefined;
      this.kick(id);
    }, ms);
  }

  private async attempt(id: string, lane: Lane, record: WebhookRecord, event: VigilEvent): Promise<void> {
    const generation = lane.generation;
    const { body, webhookId } = wireOf(lane, event);
    // Every failure in a row is at the head event (the cursor does not move on one), so this is its attempt number.
    const attemptNumber = (record.health.state === 'failing' ? record.health.failures : 0) + 1;
    const outcome = await postAttempt(this.options, {
      record,
      signer: lane.signer,
      webhookId,
      body,
      holder: lane,
      connection: record.health.state === 'ok' ? 'warm' : 'cold',
    });
    if (this.lanes.get(id) !== lane) return;
    // `advance` is decided when the change is applied, not now: a redeliver queued ahead of this outcome rewinds the
    // lane before it runs, and the cursor it moved back must stay there.
    const input = (): EndpointInput =>
      is2xx(outcome.status)
        ? {
            type: 'delivered',
            seq: event.seq,
            at: outcome.at,
            status: outcome.status!,
            advance: lane.generation === generation,
          }
        : {
            type: 'failed',
            seq: event.seq,
            at: outcome.at,
            eventAt: Date.parse(event.at),
            error: outcome.error ?? 'no answer',
            ...(outcome.status === undefined ? {} : { status: outcome.status }),
          };
    const attempt = attemptOf(event.seq, webhookId, attemptNumber, outcome);
    this.options.metrics?.webhookAttempt(id, outcomeName(outcome), outcome.ms / 1000);
    await this.ledger.change(id, input, attempt);
    if (is2xx(outcome.status)) {
      this.options.metrics?.webhookBacklog(id, lane.buffer.length > 1 ? lane.buffer.length - 1 : 0);
    }
  }
}
