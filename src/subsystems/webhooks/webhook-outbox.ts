/**
 * The webhook outbox: the I/O host around the endpoint machine. One lane per endpoint reads the journal forward from
 * its cursor, POSTs one event at a time, signed, and stores the outcome (cursor, state, attempt): a state change in one
 * synced write before the next event goes out, a plain delivery with the store's next batch (see `WebhookStore`); a
 * failure waits out the backoff on the injected clock. Nothing here is awaited by a
 * beat, a turn or the feed: the bus only wakes a lane.
 */
import { randomBytes } from 'node:crypto';
import type { EventPayload, VigilEvent } from '../../protocol/events.schema.js';
import type { WebhookAttempt, WebhookRecord } from '../../protocol/webhooks.schema.js';
import type { Clock } from '../../shared/clock.js';
import { silentLogger, type VigilLogger } from '../../shared/logger.js';
import { DEFAULT_BACKOFF, type BackoffSettings } from './webhook-backoff.js';
import {
  endpointTransition,
  isEnabled,
  type EndpointInput,
  type EndpointNotice,
  type EndpointSettings,
} from './webhook-endpoint.machine.js';
import { webhookEventMatcher } from './webhook-event-match.js';
import { describePostError, type UnsignedWebhookPost, type WebhookPost } from './webhook-post.js';
import { signedRequest, webhookBody, webhookMessageId, WebhookSigner } from './webhook-signing.js';
import type { WebhookStoreLike } from './webhook-store.js';

/** Where the outbox reads events: the journal, forward from a seq. */
export interface WebhookEventSource {
  /** Events after seq `after` whose type `types` match (as `events.history` filters), oldest first, at most `limit`. */
  read(after: number, types: readonly string[], limit: number): Promise<VigilEvent[]>;
}

/** Where the outbox reports `webhook.*` events (the bus). */
export interface WebhookNotifier {
  emit<T extends 'webhook.failing' | 'webhook.disabled' | 'webhook.recovered' | 'webhook.gap'>(
    type: T,
    payload: EventPayload<T>,
  ): unknown;
}

/** How an attempt ended, for the deliveries counter. */
export type WebhookOutcome = 'delivered' | 'failed' | 'timeout';

/** Where the outbox reports its metrics (VigilMetrics implements it); never the URL or the secret, only the id. */
export interface WebhookMetricsSink {
  webhookAttempt(endpointId: string, outcome: WebhookOutcome, seconds: number): void;
  webhookBacklog(endpointId: string, events: number): void;
  webhookRemoved(endpointId: string): void;
}

/** The outbox's settings (from the configuration; the backoff only tests and the simulator change). */
export interface WebhookOutboxSettings {
  /** VIGIL_WEBHOOK_TIMEOUT_MS: an attempt with no answer by then is aborted and failed. */
  timeoutMs: number;
  /** VIGIL_WEBHOOK_RETRY_HOURS in ms. */
  retryWindowMs: number;
  /** Default: about 1 s doubling to one hour (`webhook-backoff.ts`). */
  backoff?: BackoffSettings;
  /** How many events a lane reads from the journal at once (default 100). */
  pageSize?: number;
}

/** What the outbox is built from; every part is injected, so a test or the simulator drives it on its own clock. */
export interface WebhookOutboxOptions {
  store: WebhookStoreLike;
  events: WebhookEventSource;
  /** The POST to an endpoint that is ok: the next event on a warm, kept-alive connection. */
  post: WebhookPost;
  /**
   * The POST of a retry at a failing endpoint, and of `webhooks.test` (default: signed here and sent by `post`): the
   * attempts that run cold (a new connection, often refused, reset or timed out), which the daemon signs and sends
   * from a thread of its own.
   */
  retryPost?: UnsignedWebhookPost;
  clock: Clock;
  notifier: WebhookNotifier;
  settings: WebhookOutboxSettings;
  /** The jitter's source (default Math.random). */
  random?: () => number;
  metrics?: WebhookMetricsSink;
  log?: VigilLogger;
  /** The beat number a `webhook.test` event carries (default 0). */
  beat?: () => number;
}

/** An event as it goes on the wire: its body and `webhook-id`, made once for every attempt at it. */
interface Wire {
  event: VigilEvent;
  body: string;
  webhookId: string;
}

/** One endpoint's lane: what it has read ahead, and whether it is sending or waiting. */
interface Lane {
  id: string;
  /** Events of its types after the cursor, read ahead, oldest first. */
  buffer: VigilEvent[];
  /** The journal has been read through this seq: the buffer holds every event for the endpoint up to it. */
  scannedThrough: number;
  /** Bumped when the cursor is moved under the lane (redeliver, gap): an attempt begun before must not advance it. */
  generation: number;
  /** True from a kick until the pump returns (cleared in the same step as its last check, so no wake falls between). */
  active: boolean;
  /** The running pump, for `stop` to await. */
  running: Promise<void> | undefined;
  /** Woken while running: look at the journal again before going idle. */
  wakeAgain: boolean;
  /** The backoff timer while a failing endpoint waits. */
  timer: unknown;
  inflight: AbortController | undefined;
  matches: (event: VigilEvent) => boolean;
  signer: WebhookSigner;
  /** The head event's wire form: a failing endpoint retries one event many times, and each retry sends the same. */
  wire: Wire | undefined;
}

/** The outcome of one POST. */
interface PostOutcome {
  at: number;
  status?: number;
  error?: string;
  ms: number;
  timedOut: boolean;
}

const is2xx = (status: number | undefined): boolean => status !== undefined && status >= 200 && status < 300;

/**
 * Why an attempt is aborted at the timeout. Made once: `abort()` without a reason makes a DOMException, and with it a
 * stack trace, at every timed-out attempt (a slow endpoint times out at each backoff step).
 */
const TIMEOUT_REASON = new Error('the webhook attempt had no answer within the timeout');
/** What the timer gives the race at the timeout: a value, not a rejection, so no error is made for it either. */
const TIMED_OUT = Symbol('timed out');

/** The outbox: lanes for every endpoint, woken by new events (`notify`) and by their backoff timers. */
export class WebhookOutbox {
  private readonly lanes = new Map<string, Lane>();
  private readonly mutations = new Map<string, Promise<unknown>>();
  private readonly machine: EndpointSettings;
  private readonly pageSize: number;
  private readonly log: VigilLogger;
  private stopped = false;

  constructor(private readonly options: WebhookOutboxOptions) {
    this.machine = {
      retryWindowMs: options.settings.retryWindowMs,
      backoff: options.settings.backoff ?? DEFAULT_BACKOFF,
      random: options.random ?? Math.random,
    };
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
    await Promise.all([...this.mutations.values()].map((pending) => pending.catch(() => {})));
    await this.options.store.flush();
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
    await this.mutate(id, async () => {
      await this.options.store.remove(id);
    });
    this.options.metrics?.webhookRemoved(id);
  }

  /** `webhooks.enable`: ok again, with a fresh retry window; deliveries resume at once. */
  async enable(id: string): Promise<void> {
    await this.change(id, { type: 'enabled', at: this.options.clock.now() });
    this.rewake(id);
  }

  /** `webhooks.redeliver`: the cursor goes back to `afterSeq` (never forward), and events after it go out again. */
  async redeliver(id: string, afterSeq: number): Promise<void> {
    await this.change(id, { type: 'redeliver', afterSeq, at: this.options.clock.now() }, undefined, () =>
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
    const outcome = await this.post(record, undefined, webhookId, body, undefined, 'cold');
    const attempt = this.attemptOf(0, webhookId, 1, outcome);
    this.options.metrics?.webhookAttempt(id, this.outcomeName(outcome), outcome.ms / 1000);
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
      const through = this.effectiveCursor(record);
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
      const cursor = this.effectiveCursor(record);
      if (cursor >= last.seq) continue;
      const lane = this.lanes.get(record.id);
      const matches = lane?.matches ?? webhookEventMatcher(record);
      const lost = events.filter((event) => event.seq > cursor && matches(event));
      await this.change(record.id, { type: 'skipped', throughSeq: last.seq }, undefined, () =>
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

  /** The cursor, or past it when everything between it and the lane's read-ahead is of other types. */
  private effectiveCursor(record: WebhookRecord): number {
    const lane = this.lanes.get(record.id);
    if (lane === undefined) return record.deliveredSeq;
    const head = lane.buffer[0];
    const readPast = head === undefined ? lane.scannedThrough : head.seq - 1;
    return Math.max(record.deliveredSeq, readPast);
  }

  private lane(id: string, record: WebhookRecord): Lane {
    let lane = this.lanes.get(id);
    if (lane === undefined) {
      lane = {
        id,
        buffer: [],
        scannedThrough: record.deliveredSeq,
        generation: 0,
        active: false,
        running: undefined,
        wakeAgain: false,
        timer: undefined,
        inflight: undefined,
        matches: webhookEventMatcher(record),
        signer: new WebhookSigner(record.secret),
        wire: undefined,
      };
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
    if (lane !== undefined) this.rewind(lane);
  }

  private rewind(lane: Lane): void {
    lane.generation += 1;
    lane.buffer = [];
    lane.scannedThrough = 0;
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
        const event = await this.head(lane, record);
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

  /** The oldest event the endpoint has not received, reading the journal forward as needed; undefined when none. */
  private async head(lane: Lane, record: WebhookRecord): Promise<VigilEvent | undefined> {
    for (;;) {
      while (lane.buffer[0] !== undefined && lane.buffer[0].seq <= record.deliveredSeq) lane.buffer.shift();
      if (lane.scannedThrough < record.deliveredSeq) {
        lane.buffer = [];
        lane.scannedThrough = record.deliveredSeq;
      }
      if (lane.buffer[0] !== undefined) return lane.buffer[0];
      const generation = lane.generation;
      const from = lane.scannedThrough;
      const page = await this.options.events.read(from, record.types, this.pageSize);
      // The cursor moved while reading: read again from where it is now.
      if (lane.generation !== generation || this.options.store.get(record.id) !== record) return undefined;
      const last = page.at(-1);
      if (last === undefined) return undefined;
      lane.buffer.push(...page.filter(lane.matches));
      lane.scannedThrough = last.seq;
    }
  }

  private async attempt(id: string, lane: Lane, record: WebhookRecord, event: VigilEvent): Promise<void> {
    const generation = lane.generation;
    const { body, webhookId } = this.wireOf(lane, event);
    // Every failure in a row is at the head event (the cursor does not move on one), so this is its attempt number.
    const attemptNumber = (record.health.state === 'failing' ? record.health.failures : 0) + 1;
    const outcome = await this.post(
      record,
      lane.signer,
      webhookId,
      body,
      lane,
      record.health.state === 'ok' ? 'warm' : 'cold',
    );
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
    const attempt = this.attemptOf(event.seq, webhookId, attemptNumber, outcome);
    this.options.metrics?.webhookAttempt(id, this.outcomeName(outcome), outcome.ms / 1000);
    await this.change(id, input, attempt);
    if (is2xx(outcome.status)) {
      this.options.metrics?.webhookBacklog(id, lane.buffer.length > 1 ? lane.buffer.length - 1 : 0);
    }
  }

  /** `event`'s body and `webhook-id`: made at its first attempt, kept for the retries (the event never changes). */
  private wireOf(lane: Lane, event: VigilEvent): Wire {
    if (lane.wire?.event === event) return lane.wire;
    const body = webhookBody(event);
    lane.wire = { event, body, webhookId: webhookMessageId(event.seq, body) };
    return lane.wire;
  }

  /** One POST (`cold`: by `retryPost`) with the timeout on the injected clock; never rejects. */
  private async post(
    record: WebhookRecord,
    signer: WebhookSigner | undefined,
    webhookId: string,
    body: string,
    lane: Lane | undefined,
    connection: 'warm' | 'cold',
  ): Promise<PostOutcome> {
    const { clock, settings } = this.options;
    const startedAt = clock.now();
    const controller = new AbortController();
    if (lane !== undefined) lane.inflight = controller;
    let timer: unknown;
    let timedOut = false;
    const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = clock.setTimeout(() => {
        timedOut = true;
        controller.abort(TIMEOUT_REASON);
        resolve(TIMED_OUT);
      }, settings.timeoutMs);
    });
    try {
      const unsigned = {
        url: record.url,
        body,
        webhookId,
        atMs: startedAt,
        secret: record.secret,
        signal: controller.signal,
      };
      const { retryPost } = this.options;
      const sent =
        connection === 'cold' && retryPost !== undefined
          ? retryPost(unsigned)
          : this.options.post(signedRequest(unsigned, signer));
      const response = await Promise.race([sent, timeout]);
      const at = clock.now();
      if (response === TIMED_OUT) return this.timedOut(startedAt, at);
      const status = response.status;
      const error = is2xx(status) ? undefined : `HTTP ${status}`;
      return { at, status, ms: at - startedAt, timedOut: false, ...(error === undefined ? {} : { error }) };
    } catch (err) {
      const at = clock.now();
      // A POST that rejects as it is aborted (before the timer's value reaches the race) timed out all the same.
      if (timedOut) return this.timedOut(startedAt, at);
      return { at, error: describePostError(err), ms: at - startedAt, timedOut: false };
    } finally {
      clock.clearTimeout(timer);
      if (lane !== undefined && lane.inflight === controller) lane.inflight = undefined;
    }
  }

  private timedOut(startedAt: number, at: number): PostOutcome {
    return { at, error: `no answer within ${this.options.settings.timeoutMs} ms`, ms: at - startedAt, timedOut: true };
  }

  private attemptOf(seq: number, webhookId: string, attempt: number, outcome: PostOutcome): WebhookAttempt {
    return {
      seq,
      webhookId,
      attempt,
      at: new Date(outcome.at).toISOString(),
      ...(outcome.status === undefined ? {} : { status: outcome.status }),
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
      ms: Math.max(0, outcome.ms),
    };
  }

  private outcomeName(outcome: PostOutcome): WebhookOutcome {
    if (is2xx(outcome.status)) return 'delivered';
    return outcome.timedOut ? 'timeout' : 'failed';
  }

  /**
   * Applies `input` (or what it gives, made at that moment) to endpoint `id`'s latest record and stores it (with `attempt`); then, in the same step,
   * `afterSave` (a lane rewind) and the notices.
   */
  private change(
    id: string,
    input: EndpointInput | (() => EndpointInput),
    attempt?: WebhookAttempt,
    afterSave?: () => void,
  ): Promise<void> {
    return this.mutate(id, async () => {
      const latest = this.options.store.get(id);
      if (latest === undefined) return;
      const applied = typeof input === 'function' ? input() : input;
      const { record, notices } = endpointTransition(latest, applied, this.machine);
      // A delivery that changes no state only moves the cursor: it counts at once and reaches the disk with the next
      // batch, so the next event goes out without waiting on a write (a crash before it repeats a few, as at least
      // once allows). Every state change is stored synced before it counts or is announced.
      if (
        applied.type === 'delivered' &&
        attempt !== undefined &&
        notices.length === 0 &&
        record.health.state === latest.health.state
      ) {
        this.options.store.advance(record, attempt);
        return;
      }
      await this.options.store.save(record, attempt);
      afterSave?.();
      for (const notice of notices) this.emitNotice(notice);
    });
  }

  private emitNotice(notice: EndpointNotice): void {
    switch (notice.type) {
      case 'webhook.failing':
        this.options.notifier.emit(notice.type, notice.payload);
        break;
      case 'webhook.disabled':
        this.options.notifier.emit(notice.type, notice.payload);
        break;
      case 'webhook.recovered':
        this.options.notifier.emit(notice.type, notice.payload);
        break;
    }
  }

  /** Runs `fn` after every earlier change of endpoint `id`: a lane's outcome and an operator's change never interleave. */
  private mutate(id: string, fn: () => Promise<void>): Promise<void> {
    const previous = this.mutations.get(id) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(fn);
    this.mutations.set(id, next);
    void next
      .finally(() => {
        if (this.mutations.get(id) === next) this.mutations.delete(id);
      })
      .catch(() => {});
    return next;
  }
}
