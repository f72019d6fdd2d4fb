/**
 * The OAuth records of remote MCP servers (one per server name, in their own sublevel, sealed with the rest under
 * VIGIL_CHECKPOINT_KEY), all held in memory once opened. Every change is written synced before memory follows, so a
 * token the authorization server handed out survives a `kill -9` the moment `saveTokens` returns.
 */
import {
  EMPTY_OAUTH_RECORD,
  McpOAuthRecordSchema,
  type McpOAuthRecord,
  type PendingSignIn,
} from '../../../protocol/mcp-oauth.schema.js';
import { SUBLEVELS, toStoreError, writeSyncBatch, type VigilDb } from '../../store/vigil-db.js';

/** A pending sign-in found by its `state`, with the server it belongs to. */
export interface FoundSignIn {
  server: string;
  signIn: PendingSignIn;
}

/** The store: reads from memory, writes synced, one write at a time per server (read-modify-write never interleaves). */
export class OAuthStore {
  private readonly records;
  private readonly byServer = new Map<string, McpOAuthRecord>();
  private readonly queues = new Map<string, Promise<unknown>>();

  private constructor(private readonly db: VigilDb) {
    this.records = db.sublevel<string, McpOAuthRecord>(SUBLEVELS.mcpOAuth, { valueEncoding: 'json' });
  }

  /** Opens the store and reads every record (one that does not parse is passed over: that server signs in again). */
  static async open(db: VigilDb): Promise<OAuthStore> {
    const store = new OAuthStore(db);
    try {
      for (const [server, value] of await store.records.iterator().all()) {
        const record = McpOAuthRecordSchema.safeParse(value);
        if (record.success) store.byServer.set(server, record.data);
      }
    } catch (err) {
      throw toStoreError(err, 'read the MCP servers’ OAuth records');
    }
    return store;
  }

  /** The record of `server` (an empty one when none is stored). */
  get(server: string): McpOAuthRecord {
    return this.byServer.get(server) ?? EMPTY_OAUTH_RECORD;
  }

  /** True when anything is stored for `server`. */
  has(server: string): boolean {
    return this.byServer.has(server);
  }

  /** The pending sign-in whose `state` this is, whatever its server and expiry (the caller checks the time). */
  findSignIn(state: string): FoundSignIn | undefined {
    for (const [server, record] of this.byServer) {
      const signIn = record.signIns.find((pending) => pending.state === state);
      if (signIn !== undefined) return { server, signIn };
    }
    return undefined;
  }

  /** Applies `change` to the record of `server` and writes the result synced; resolves to the record as written. */
  update(server: string, change: (record: McpOAuthRecord) => McpOAuthRecord): Promise<McpOAuthRecord> {
    const previous = this.queues.get(server) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const value = McpOAuthRecordSchema.parse(change(this.get(server)));
        try {
          await writeSyncBatch(this.db, [{ type: 'put', sublevel: this.records, key: server, value }]);
        } catch (err) {
          throw toStoreError(err, `save the OAuth record of MCP server ${server}`);
        }
        this.byServer.set(server, value);
        return value;
      });
    this.queues.set(server, next);
    return next;
  }
}
