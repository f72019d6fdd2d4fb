/**
 * Webhook endpoints on disk: one record per endpoint (its cursor, state and signing secret, sealed with the rest of
 * the store under VIGIL_CHECKPOINT_KEY), all held in memory once opened; and each endpoint's newest attempts, kept to
 * `ATTEMPTS_KEPT`. A record change and its attempt are written in one batch, so a cursor on disk always has its
 * attempt. A state change is synced before it counts; a delivery's advance counts at once and is written with the
 * next batch, not synced, within `ADVANCE_FLUSH_MS` or once `ADVANCE_FLUSH_AT` are queued: a delivery never waits on
 * the disk, and a thousand deliveries cost a few LevelDB writes rather than a thousand synced ones.
 */
import {
  WebhookAttemptSchema,
  WebhookRecordSchema,
  type WebhookAttempt,
  type WebhookRecord,
} from '../../protocol/webhooks.schema.js';
import type { Clock } from '../../shared/clock.js';
import { readValidRecords } from '../store/read-valid-records.js';
import { SUBLEVELS, toStoreError, writeSyncBatch, type VigilBatchOp, type VigilDb } from '../store/vigil-db.js';

/** Attempts kept per endpoint (the newest). */
export const ATTEMPTS_KEPT = 1000;
/** Queued advances are written at the latest this long after the first of them (a real, unreferenced timer). */
export const ADVANCE_FLUSH_MS = 50;
/** …or at once when this many are queued. */
export const ADVANCE_FLUSH_AT = 256;
const COUNTER_WIDTH = 12;

/** Where the store's batching timers come from (Node's by default; the simulator passes its clock). */
export type StoreTimers = Pick<Clock, 'setTimeout' | 'clearTimeout'>;

const NODE_TIMERS: StoreTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** What the outbox needs of a store: the records in memory, and ordered writes. */
export interface WebhookStoreLike {
  list(): WebhookRecord[];
  get(id: string): WebhookRecord | undefined;
  /** Writes `record` and, when given, one attempt, synced (with whatever `advance` queued); memory follows once on disk. */
  save(record: WebhookRecord, attempt?: WebhookAttempt): Promise<void>;
  /**
   * A delivery's outcome that changes no state (the cursor moves past a 2xx'd event): memory at once, the disk with the
   * next batch, not synced. A process killed before that batch repeats these deliveries after the restart, which at
   * least once allows. Throws the fault of an earlier such batch that failed, once.
   */
  advance(record: WebhookRecord, attempt: WebhookAttempt): void;
  /** Resolves once everything `advance` queued so far is written. */
  flush(): Promise<void>;
  /** Stores an attempt that changes no record (`webhooks.test`). */
  recordAttempt(id: string, attempt: WebhookAttempt): Promise<void>;
  /** Deletes the endpoint and its attempts. */
  remove(id: string): Promise<void>;
  /** Its newest `limit` attempts, newest first (those `advance` queued included). */
  attempts(id: string, limit: number): Promise<WebhookAttempt[]>;
}

/** Records and attempts written together in the next batch. */
interface Pending {
  records: Map<string, WebhookRecord>;
  attempts: Array<{ id: string; attempt: WebhookAttempt }>;
}

const attemptKey = (id: string, counter: number): string => `${id}!${String(counter).padStart(COUNTER_WIDTH, '0')}`;

/** The LevelDB store of webhook endpoints. */
export class WebhookStore implements WebhookStoreLike {
  private readonly records;
  private readonly attemptLog;
  private readonly byId = new Map<string, WebhookRecord>();
  // The next attempt counter of each endpoint, read from the log the first time it is needed.
  private readonly counters = new Map<string, number>();
  // Every write goes through this chain, one at a time and in order: a later record of an endpoint never lands first.
  private writes: Promise<void> = Promise.resolve();
  private pending: Pending = { records: new Map(), attempts: [] };
  // The timer that writes `pending`, while one is armed.
  private timer: unknown;
  private fault: Error | undefined;

  private constructor(
    private readonly db: VigilDb,
    private readonly timers: StoreTimers,
  ) {
    this.records = db.sublevel<string, WebhookRecord>(SUBLEVELS.webhooks, { valueEncoding: 'json' });
    this.attemptLog = db.sublevel<string, WebhookAttempt>(SUBLEVELS.webhookAttempts, { valueEncoding: 'json' });
  }

  /** Opens the store and reads every endpoint (a record that does not parse is passed over). */
  static async open(db: VigilDb, options: { timers?: StoreTimers | undefined } = {}): Promise<WebhookStore> {
    const store = new WebhookStore(db, options.timers ?? NODE_TIMERS);
    for (const record of await readValidRecords(store.records, WebhookRecordSchema, 'read the webhook endpoints'))
      store.byId.set(record.id, record);
    return store;
  }

  list(): WebhookRecord[] {
    return [...this.byId.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  get(id: string): WebhookRecord | undefined {
    return this.byId.get(id);
  }

  async save(record: WebhookRecord, attempt?: WebhookAttempt): Promise<void> {
    const value = WebhookRecordSchema.parse(record);
    const attempts = attempt === undefined ? [] : [{ id: record.id, attempt }];
    await this.inOrder(
      () => this.commit({ records: new Map([[record.id, value]]), attempts }, true),
      'save',
      record.id,
    );
    this.byId.set(record.id, value);
  }

  advance(record: WebhookRecord, attempt: WebhookAttempt): void {
    if (this.fault !== undefined) {
      const fault = this.fault;
      this.fault = undefined;
      throw fault;
    }
    this.byId.set(record.id, record);
    this.pending.records.set(record.id, record);
    this.pending.attempts.push({ id: record.id, attempt });
    if (this.pending.attempts.length >= ADVANCE_FLUSH_AT) this.writePending();
    else this.timer ??= this.timers.setTimeout(() => this.writePending(), ADVANCE_FLUSH_MS);
  }

  async flush(): Promise<void> {
    this.writePending();
    await this.writes;
  }

  /** Chains a write of what `advance` queued (a later write takes it if an earlier one in the chain has not yet). */
  private writePending(): void {
    this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    const first = this.pending.attempts[0];
    if (first === undefined) return;
    this.inOrder(() => this.commit({ records: new Map(), attempts: [] }, false), 'save', first.id).catch(
      (err: unknown) => {
        this.fault = err instanceof Error ? err : new Error(String(err));
      },
    );
  }

  async recordAttempt(id: string, attempt: WebhookAttempt): Promise<void> {
    await this.inOrder(() => this.commit({ records: new Map(), attempts: [{ id, attempt }] }, true), 'record', id);
  }

  async remove(id: string): Promise<void> {
    this.byId.delete(id);
    this.pending.records.delete(id);
    this.pending.attempts = this.pending.attempts.filter((queued) => queued.id !== id);
    await this.inOrder(
      async () => {
        this.counters.delete(id);
        await writeSyncBatch(this.db, [{ type: 'del', sublevel: this.records, key: id }]);
        await this.attemptLog.clear({ gt: `${id}!`, lt: `${id}!~` });
      },
      'remove',
      id,
    );
  }

  async attempts(id: string, limit: number): Promise<WebhookAttempt[]> {
    await this.flush();
    try {
      const values = await this.attemptLog.values({ gt: `${id}!`, lt: `${id}!~`, reverse: true, limit }).all();
      return values.flatMap((value) => {
        const parsed = WebhookAttemptSchema.safeParse(value);
        return parsed.success ? [parsed.data] : [];
      });
    } catch (err) {
      throw toStoreError(err, `read the attempts of webhook endpoint ${id}`);
    }
  }

  /** Runs `write` after every earlier write; a fault becomes a store error naming what was written. */
  private inOrder(write: () => Promise<void>, what: 'save' | 'record' | 'remove', id: string): Promise<void> {
    const done = this.writes.then(write).catch((err: unknown) => {
      const action = { save: 'save', record: 'record an attempt of', remove: 'remove' }[what];
      throw toStoreError(err, `${action} webhook endpoint ${id}`);
    });
    this.writes = done.catch(() => {});
    return done;
  }

  /**
   * Writes `own` (its records parsed by `save`) after what `advance` queued, in one batch: a record of an endpoint in
   * `own` is the newer one.
   */
  private async commit(own: Pending, synced: boolean): Promise<void> {
    const queued = this.pending;
    this.pending = { records: new Map(), attempts: [] };
    const attempts = [...queued.attempts, ...own.attempts];
    for (const { id } of attempts) if (!this.counters.has(id)) this.counters.set(id, await this.loadCounter(id));
    const ops: VigilBatchOp[] = [];
    for (const record of queued.records.values())
      ops.push({ type: 'put', sublevel: this.records, key: record.id, value: WebhookRecordSchema.parse(record) });
    // `save` parsed its record already (its URL check builds a URL): once per write is enough.
    for (const record of own.records.values())
      ops.push({ type: 'put', sublevel: this.records, key: record.id, value: record });
    for (const { id, attempt } of attempts) {
      const counter = (this.counters.get(id) ?? 0) + 1;
      this.counters.set(id, counter);
      const value = WebhookAttemptSchema.parse(attempt);
      ops.push({ type: 'put', sublevel: this.attemptLog, key: attemptKey(id, counter), value });
      // Counters run without holes, so the attempt ATTEMPTS_KEPT back is the one to go: no read, no range delete.
      if (counter > ATTEMPTS_KEPT)
        ops.push({ type: 'del', sublevel: this.attemptLog, key: attemptKey(id, counter - ATTEMPTS_KEPT) });
    }
    if (ops.length === 0) return;
    await (synced ? writeSyncBatch(this.db, ops) : this.db.batch<string, unknown>(ops, {}));
  }

  /** The last attempt counter endpoint `id` used (0 for none), read once a run. */
  private async loadCounter(id: string): Promise<number> {
    const [last] = await this.attemptLog.keys({ gt: `${id}!`, lt: `${id}!~`, reverse: true, limit: 1 }).all();
    // Once a run: a log written by an earlier version (trimmed in steps) may hold more than ATTEMPTS_KEPT.
    await this.trim(id);
    return last === undefined ? 0 : Number(last.slice(id.length + 1));
  }

  /** Deletes all but the newest `ATTEMPTS_KEPT` attempts of endpoint `id`. */
  private async trim(id: string): Promise<void> {
    const newest = await this.attemptLog
      .keys({ gt: `${id}!`, lt: `${id}!~`, reverse: true, limit: ATTEMPTS_KEPT + 1 })
      .all();
    // The first key past the newest ATTEMPTS_KEPT, and everything older, goes.
    const cut = newest[ATTEMPTS_KEPT];
    if (cut !== undefined) await this.attemptLog.clear({ gt: `${id}!`, lte: cut });
  }
}
