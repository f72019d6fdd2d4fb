/**
 * Webhook endpoints on disk: one record per endpoint (its cursor, state and signing secret, sealed with the rest of
 * the store under VIGIL_CHECKPOINT_KEY), all held in memory once opened; and each endpoint's newest attempts, kept to
 * `ATTEMPTS_KEPT`. A record change and its attempt are one synced batch, so a cursor on disk always has its attempt.
 */
import {
  WebhookAttemptSchema,
  WebhookRecordSchema,
  type WebhookAttempt,
  type WebhookRecord,
} from '../../protocol/webhooks.schema.js';
import { readValidRecords } from '../store/read-valid-records.js';
import { SUBLEVELS, toStoreError, writeSyncBatch, type VigilBatchOp, type VigilDb } from '../store/vigil-db.js';

/** Attempts kept per endpoint (the newest). */
export const ATTEMPTS_KEPT = 1000;
// The attempt log is trimmed once per this many attempts of an endpoint, not on every one.
const TRIM_EVERY = 100;
const COUNTER_WIDTH = 12;

/** What the outbox needs of a store: the records in memory, and synced writes. */
export interface WebhookStoreLike {
  list(): WebhookRecord[];
  get(id: string): WebhookRecord | undefined;
  /** Writes `record` and, when given, one attempt, in one synced batch; memory follows once it is on disk. */
  save(record: WebhookRecord, attempt?: WebhookAttempt): Promise<void>;
  /** Stores an attempt that changes no record (`webhooks.test`). */
  recordAttempt(id: string, attempt: WebhookAttempt): Promise<void>;
  /** Deletes the endpoint and its attempts. */
  remove(id: string): Promise<void>;
  /** Its newest `limit` attempts, newest first. */
  attempts(id: string, limit: number): Promise<WebhookAttempt[]>;
}

/** The LevelDB store of webhook endpoints. */
export class WebhookStore implements WebhookStoreLike {
  private readonly records;
  private readonly attemptLog;
  private readonly byId = new Map<string, WebhookRecord>();
  // The next attempt counter of each endpoint, read from the log the first time it is needed.
  private readonly counters = new Map<string, number>();

  private constructor(private readonly db: VigilDb) {
    this.records = db.sublevel<string, WebhookRecord>(SUBLEVELS.webhooks, { valueEncoding: 'json' });
    this.attemptLog = db.sublevel<string, WebhookAttempt>(SUBLEVELS.webhookAttempts, { valueEncoding: 'json' });
  }

  /** Opens the store and reads every endpoint (a record that does not parse is passed over). */
  static async open(db: VigilDb): Promise<WebhookStore> {
    const store = new WebhookStore(db);
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
    const ops: VigilBatchOp[] = [{ type: 'put', sublevel: this.records, key: record.id, value }];
    const trim = attempt === undefined ? undefined : await this.attemptOps(record.id, attempt, ops);
    await this.write(ops, `save webhook endpoint ${record.id}`);
    this.byId.set(record.id, value);
    if (trim !== undefined) await this.trim(record.id);
  }

  async recordAttempt(id: string, attempt: WebhookAttempt): Promise<void> {
    const ops: VigilBatchOp[] = [];
    const trim = await this.attemptOps(id, attempt, ops);
    await this.write(ops, `record an attempt of webhook endpoint ${id}`);
    if (trim) await this.trim(id);
  }

  async remove(id: string): Promise<void> {
    this.byId.delete(id);
    this.counters.delete(id);
    await this.write([{ type: 'del', sublevel: this.records, key: id }], `remove webhook endpoint ${id}`);
    try {
      await this.attemptLog.clear({ gt: `${id}!`, lt: `${id}!~` });
    } catch (err) {
      throw toStoreError(err, `remove the attempts of webhook endpoint ${id}`);
    }
  }

  async attempts(id: string, limit: number): Promise<WebhookAttempt[]> {
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

  /** Appends the attempt's put to `ops`; true when the log is due a trim after the write. */
  private async attemptOps(id: string, attempt: WebhookAttempt, ops: VigilBatchOp[]): Promise<boolean> {
    const next = await this.nextCounter(id);
    const value = WebhookAttemptSchema.parse(attempt);
    ops.push({
      type: 'put',
      sublevel: this.attemptLog,
      key: `${id}!${String(next).padStart(COUNTER_WIDTH, '0')}`,
      value,
    });
    return next % TRIM_EVERY === 0;
  }

  private async nextCounter(id: string): Promise<number> {
    let counter = this.counters.get(id);
    if (counter === undefined) {
      const [last] = await this.attemptLog.keys({ gt: `${id}!`, lt: `${id}!~`, reverse: true, limit: 1 }).all();
      counter = last === undefined ? 0 : Number(last.slice(id.length + 1));
    }
    counter += 1;
    this.counters.set(id, counter);
    return counter;
  }

  /** Deletes all but the newest `ATTEMPTS_KEPT` attempts of endpoint `id`. */
  private async trim(id: string): Promise<void> {
    try {
      const newest = await this.attemptLog
        .keys({ gt: `${id}!`, lt: `${id}!~`, reverse: true, limit: ATTEMPTS_KEPT + 1 })
        .all();
      // The first key past the newest ATTEMPTS_KEPT, and everything older, goes.
      const cut = newest[ATTEMPTS_KEPT];
      if (cut !== undefined) await this.attemptLog.clear({ gt: `${id}!`, lte: cut });
    } catch (err) {
      throw toStoreError(err, `trim the attempts of webhook endpoint ${id}`);
    }
  }

  private async write(ops: VigilBatchOp[], what: string): Promise<void> {
    try {
      await writeSyncBatch(this.db, ops);
    } catch (err) {
      throw toStoreError(err, what);
    }
  }
}
