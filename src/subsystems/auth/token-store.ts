/**
 * The scoped tokens on disk: one record per token in their own sublevel (sealed with the rest under
 * VIGIL_CHECKPOINT_KEY), keyed by the token's id, never its name (user text), all held in memory once opened so an
 * authentication never reads the disk.
 */
import { z } from 'zod';
import { TokenRecordSchema, type TokenRecord } from '../../protocol/tokens.schema.js';
import { readValidRecords } from '../store/read-valid-records.js';
import { SUBLEVELS, toStoreError, writeSyncBatch, type VigilDb } from '../store/vigil-db.js';

const SESSIONS_REVOKED_KEY = 'revoked-at';
const SessionsRevokedSchema = z.object({ at: z.number().int().nonnegative() });

/**
 * The last "sign out everywhere", as stored: 0 when there never was one. A record that cannot be read voids every
 * session opened before now (the safe side: browsers sign in again), rather than reviving any.
 */
async function readSessionsRevokedAt(sessions: { get(key: string): Promise<unknown> }): Promise<number> {
  try {
    const raw = await sessions.get(SESSIONS_REVOKED_KEY);
    if (raw === undefined) return 0;
    const parsed = SessionsRevokedSchema.safeParse(raw);
    return parsed.success ? parsed.data.at : Date.now();
  } catch {
    return Date.now();
  }
}

/** The token store; `open` reads every record, then reads are from memory and writes are synced. */
export class TokenStore {
  private readonly records;
  private readonly sessions;
  /** Epoch ms of the last sign-out of every browser session; 0: never. */
  private sessionsRevokedAtMs = 0;
  private readonly byId = new Map<string, TokenRecord>();
  /**
   * The writes, one at a time in the order they were asked for. LevelDB's asynchronous writes run on a thread pool and
   * may land out of order: a last-use write asked for before a revoke could land after its delete and put the revoked
   * token back on disk (and, once the daemon restarts, back in use).
   */
  private tail: Promise<void> = Promise.resolve();

  private constructor(private readonly db: VigilDb) {
    this.records = db.sublevel<string, TokenRecord>(SUBLEVELS.gatewayTokens, { valueEncoding: 'json' });
    this.sessions = db.sublevel<string, unknown>(SUBLEVELS.gatewaySessions, { valueEncoding: 'json' });
  }

  /** Opens the store and reads every token (a record that does not parse is passed over, so it authenticates nothing). */
  static async open(db: VigilDb): Promise<TokenStore> {
    const store = new TokenStore(db);
    for (const record of await readValidRecords(store.records, TokenRecordSchema, 'read the gateway tokens'))
      store.byId.set(record.id, record);
    store.sessionsRevokedAtMs = await readSessionsRevokedAt(store.sessions);
    return store;
  }

  /** Every token, oldest first (by name among those made in the same millisecond). */
  list(): TokenRecord[] {
    return [...this.byId.values()].sort((a, b) => a.createdAt - b.createdAt || (a.name < b.name ? -1 : 1));
  }

  /** How many tokens are stored. */
  get size(): number {
    return this.byId.size;
  }

  /** The token `id`, or undefined. */
  get(id: string): TokenRecord | undefined {
    return this.byId.get(id);
  }

  /** The token named `name`, or undefined. */
  named(name: string): TokenRecord | undefined {
    for (const record of this.byId.values()) if (record.name === name) return record;
    return undefined;
  }

  /** Writes `record` (new or changed), synced; memory follows once it is on disk. */
  async save(record: TokenRecord): Promise<void> {
    const value = TokenRecordSchema.parse(record);
    await this.write([{ type: 'put', sublevel: this.records, key: record.id, value }], `save token ${record.name}`);
    this.byId.set(record.id, value);
  }

  /**
   * Records that token `id` was used at `lastUsedAt`, synced, if it still exists. Memory follows only if it still
   * exists when the write is done: a revoke while the write ran must not bring the token back.
   */
  async touch(id: string, lastUsedAt: number): Promise<void> {
    const record = this.byId.get(id);
    if (record === undefined) return;
    const value = TokenRecordSchema.parse({ ...record, lastUsedAt });
    await this.write([{ type: 'put', sublevel: this.records, key: id, value }], `note the use of token ${record.name}`);
    if (this.byId.has(id)) this.byId.set(id, value);
  }

  /** Epoch ms of the last sign-out of every browser session (0: never). */
  get sessionsRevokedAt(): number {
    return this.sessionsRevokedAtMs;
  }

  /** Voids every browser session opened at or before `at`, synced; memory first, as for a revoke. */
  async revokeSessions(at: number): Promise<void> {
    this.sessionsRevokedAtMs = Math.max(this.sessionsRevokedAtMs, at);
    const value = { at: this.sessionsRevokedAtMs };
    await this.write(
      [{ type: 'put', sublevel: this.sessions, key: SESSIONS_REVOKED_KEY, value }],
      'sign out every browser',
    );
  }

  /** Deletes token `id`, synced. It is gone from memory first: a revoked token must not authenticate while the write runs. */
  async remove(id: string): Promise<void> {
    const record = this.byId.get(id);
    this.byId.delete(id);
    await this.write([{ type: 'del', sublevel: this.records, key: id }], `revoke token ${record?.name ?? id}`);
  }

  private write(ops: Parameters<typeof writeSyncBatch>[1], what: string): Promise<void> {
    const written = this.tail.then(async () => {
      try {
        await writeSyncBatch(this.db, ops);
      } catch (err) {
        throw toStoreError(err, what);
      }
    });
    // The next write waits for this one to end, failed or not.
    this.tail = written.catch(() => undefined);
    return written;
  }
}
