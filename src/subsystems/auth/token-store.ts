/**
 * The scoped tokens on disk: one record per token in their own sublevel (sealed with the rest under
 * VIGIL_CHECKPOINT_KEY), keyed by the token's id, never its name (user text), all held in memory once opened so an
 * authentication never reads the disk.
 */
import { TokenRecordSchema, type TokenRecord } from '../../protocol/tokens.schema.js';
import { readValidRecords } from '../store/read-valid-records.js';
import { SUBLEVELS, toStoreError, writeSyncBatch, type VigilDb } from '../store/vigil-db.js';

/** The token store; `open` reads every record, then reads are from memory and writes are synced. */
export class TokenStore {
  private readonly records;
  private readonly byId = new Map<string, TokenRecord>();

  private constructor(private readonly db: VigilDb) {
    this.records = db.sublevel<string, TokenRecord>(SUBLEVELS.gatewayTokens, { valueEncoding: 'json' });
  }

  /** Opens the store and reads every token (a record that does not parse is passed over, so it authenticates nothing). */
  static async open(db: VigilDb): Promise<TokenStore> {
    const store = new TokenStore(db);
    for (const record of await readValidRecords(store.records, TokenRecordSchema, 'read the gateway tokens'))
      store.byId.set(record.id, record);
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

  /** Deletes token `id`, synced. It is gone from memory first: a revoked token must not authenticate while the write runs. */
  async remove(id: string): Promise<void> {
    const record = this.byId.get(id);
    this.byId.delete(id);
    await this.write([{ type: 'del', sublevel: this.records, key: id }], `revoke token ${record?.name ?? id}`);
  }

  private async write(ops: Parameters<typeof writeSyncBatch>[1], what: string): Promise<void> {
    try {
      await writeSyncBatch(this.db, ops);
    } catch (err) {
      throw toStoreError(err, what);
    }
  }
}
