/** The checkpoint store: compressed (optionally sealed) bodies and a JSON index in two LevelDB sublevels, keyed by time-sortable id, written in one sync batch. */
import { VigilError, describeError } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { createIdFactory, type IdFactory } from '../../shared/ids.js';
import {
  SUBLEVELS,
  hasLevelCode,
  parseStoredJson,
  readTogether,
  toStoreError,
  writeSyncBatch,
  type VigilBatchOp,
  type VigilDb,
} from '../store/vigil-db.js';
import { CheckpointCipher, isSealed } from './checkpoint-cipher.js';
import { decodeCheckpoint, THREAD_POOL_ZIP, type CheckpointZip } from './checkpoint.codec.js';
import {
  encodeRawCheckpoint,
  indexEntryOf,
  rawCheckpointOf,
  saveFailed,
  type RawCheckpoint,
} from './checkpoint-raw.js';
import { assertMaxCount, compareIds, prunableIds, splitNewest } from './checkpoint-retention.js';
import { migrateCheckpoint, type Migrate } from './checkpoint.migrations.js';
import {
  CheckpointMetaSchema,
  type CheckpointMeta,
  type CognitiveCheckpoint,
} from '../../protocol/checkpoint-format.schema.js';

export type { RawCheckpoint };

/** The prefix of checkpoint ids (`ck-0mjv3k9q2a1-0000-3f9a`). */
export const CHECKPOINT_ID_PREFIX = 'ck-';

/** Options for the store: the migrator used on load (the production one by default) and the encryption key. */
export interface CheckpointStoreOptions {
  migrate?: Migrate;
  /**
   * `VIGIL_CHECKPOINT_KEY` (64 hex characters or base64) or its 32 raw bytes: bodies are then sealed with AES-256-GCM.
   * Unset: bodies are stored plain, and sealed ones cannot be read. Plain bodies are read either way.
   */
  key?: string | Uint8Array | undefined;
  /** How bodies are compressed (default zlib on its thread pool). */
  zip?: CheckpointZip | undefined;
}

/** What `save` reports: the id, the compressed size, and the ids pruned in the same batch. */
export interface CheckpointSaveResult {
  id: string;
  sizeBytes: number;
  pruned: string[];
}

/** Paging for `list`: at most `limit` entries, only ids strictly older than `before`. */
export interface ListCheckpointsOptions {
  limit?: number;
  before?: string;
}

/** Saves, lists, loads and prunes checkpoints; writes are serialised so each prune sees every earlier save. */
export class CheckpointStore {
  private readonly bodies;
  private readonly index;
  private readonly ids: IdFactory;
  private readonly migrate: Migrate;
  private readonly cipher: CheckpointCipher | null;
  private readonly zip: CheckpointZip;
  private opened = false;
  /**
   * Every stored id, read once at `open` and kept by this store's own writes: a save that pruned every checkpoint before
   * it leaves a tombstone per id in LevelDB until compaction, and scanning them made a save after a year 2–4× slower.
   */
  private stored = new Set<string>();
  private writes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: VigilDb,
    clock: Clock,
    options: CheckpointStoreOptions = {},
  ) {
    this.bodies = db.sublevel<string, Uint8Array>(SUBLEVELS.checkpointBodies, { valueEncoding: 'view' });
    this.index = db.sublevel<string, CheckpointMeta>(SUBLEVELS.checkpointIndex, { valueEncoding: 'json' });
    this.ids = createIdFactory(clock, CHECKPOINT_ID_PREFIX);
    this.migrate = options.migrate ?? migrateCheckpoint;
    this.cipher = options.key === undefined ? null : new CheckpointCipher(options.key);
    this.zip = options.zip ?? THREAD_POOL_ZIP;
  }

  /** The id of the key bodies are sealed with (a fingerprint, safe to log), or null when they are stored plain. */
  get keyId(): string | null {
    return this.cipher?.keyId ?? null;
  }

  /** Seeds the id factory from the newest stored id, in the index or among bodies, so ids stay monotonic across restarts. */
  async open(): Promise<void> {
    try {
      const [newestIndexed] = await this.index.keys({ reverse: true, limit: 1 }).all();
      const [newestBody] = await this.bodies.keys({ reverse: true, limit: 1 }).all();
      if (newestIndexed !== undefined) this.ids.observe(newestIndexed);
      if (newestBody !== undefined) this.ids.observe(newestBody);
      this.stored = new Set(await this.allIds());
    } catch (err) {
      throw toStoreError(err, 'read the newest checkpoint id');
    }
    this.opened = true;
  }

  /** A fresh id, later than every id stored or issued; call `open` first. */
  newId(): string {
    if (!this.opened) throw new VigilError('INTERNAL', 'CheckpointStore.newId() was called before open().');
    return this.ids.next();
  }

  /**
   * Stores `cp` and prunes beyond the newest `maxCount` (counting it), all in one sync batch; with `alongside`, the
   * operations it returns (called once, just before the write) go into that same batch.
   */
  async save(
    cp: CognitiveCheckpoint,
    maxCount: number,
    alongside?: () => readonly VigilBatchOp[],
  ): Promise<CheckpointSaveResult> {
    assertMaxCount(maxCount);
    const { bytes, meta } = await encodeRawCheckpoint(cp, this.cipher, this.zip);
    return this.exclusive(async () => {
      this.ids.observe(cp.id);
      try {
        const { kept, pruned: candidates } = splitNewest([...(await this.storedIds()), cp.id], maxCount);
        const pruned = await this.prunable(candidates);
        const ops: VigilBatchOp[] = kept.includes(cp.id) ? this.putOps(bytes, meta) : [];
        ops.push(...pruned.flatMap((id) => this.delOps(id)), ...(alongside?.() ?? []));
        await writeSyncBatch(this.db, ops);
        if (kept.includes(cp.id)) this.stored.add(cp.id);
        for (const id of pruned) this.stored.delete(id);
        return { id: cp.id, sizeBytes: bytes.byteLength, pruned };
      } catch (err) {
        throw saveFailed(cp.id, 'could not be written', err);
      }
    });
  }

  /** Index entries, newest first, without touching any body. */
  async list(options: ListCheckpointsOptions = {}): Promise<CheckpointMeta[]> {
    try {
      // Read as text and parsed here: one entry that is not JSON must not fail the whole listing.
      const entries = await this.index
        .iterator<string, string>({
          reverse: true,
          valueEncoding: 'utf8',
          ...(options.before !== undefined && { lt: options.before }),
          ...(options.limit !== undefined && { limit: Math.max(0, Math.floor(options.limit)) }),
        })
        .all();
      // A malformed index entry is skipped here; `loadNewestValid` reports it.
      return entries.flatMap(([, text]) => indexEntryOf(text) ?? []);
    } catch (err) {
      throw toStoreError(err, 'list checkpoints');
    }
  }

  /** The decoded checkpoint; CHECKPOINT_NOT_FOUND if absent, CHECKPOINT_CORRUPT / CHECKPOINT_FORMAT_UNSUPPORTED if unreadable. */
  async load(id: string): Promise<CognitiveCheckpoint> {
    const raw = await this.loadRaw(id);
    const cp = await decodeCheckpoint(
      raw.bytes,
      this.migrate,
      `Checkpoint ${id}`,
      { cipher: this.cipher, id },
      this.zip,
    );
    if (cp.id !== id) {
      throw new VigilError('CHECKPOINT_CORRUPT', `Checkpoint ${id} holds the body of checkpoint ${cp.id}.`);
    }
    return cp;
  }

  /** The stored bytes (sealed if a key sealed them) and index entry, undecoded; a missing half is CHECKPOINT_CORRUPT. */
  async loadRaw(id: string): Promise<RawCheckpoint> {
    let bytes: Uint8Array | undefined;
    let entry: Uint8Array | undefined;
    try {
      // One snapshot for both halves: a save's prune landing between two reads made a checkpoint look half-deleted.
      [bytes, entry] = await readTogether(this.db, id, [this.bodies, this.index]);
    } catch (err) {
      if (hasLevelCode(err, 'LEVEL_CORRUPTION') || hasLevelCode(err, 'LEVEL_DECODE_ERROR')) {
        throw new VigilError('CHECKPOINT_CORRUPT', `Checkpoint ${id} could not be read: ${describeError(err)}.`, {
          cause: err,
        });
      }
      throw toStoreError(err, `read checkpoint ${id}`);
    }
    return rawCheckpointOf(id, bytes, entry === undefined ? undefined : indexEntryJson(id, entry));
  }

  /**
   * Stores already-encoded bytes (for import) after checking they decode to checkpoint `id`; one sync batch, no prune.
   * A plain body given to a store with a key is sealed first, so an import never leaves plaintext behind.
   */
  async putRaw(id: string, bytes: Uint8Array, meta: CheckpointMeta): Promise<CheckpointMeta> {
    const cp = await decodeCheckpoint(bytes, this.migrate, `Checkpoint ${id}`, { cipher: this.cipher, id }, this.zip);
    const parsedMeta = CheckpointMetaSchema.safeParse(meta);
    if (cp.id !== id || !parsedMeta.success || parsedMeta.data.id !== id) {
      throw new VigilError('CHECKPOINT_CORRUPT', `Checkpoint ${id} does not match its body or index entry.`);
    }
    const body = this.cipher !== null && !isSealed(bytes) ? this.cipher.seal(id, bytes) : bytes;
    const stored: CheckpointMeta = { ...parsedMeta.data, sizeBytes: body.byteLength };
    return this.exclusive(async () => {
      this.ids.observe(id);
      try {
        await writeSyncBatch(this.db, this.putOps(body, stored));
      } catch (err) {
        throw saveFailed(id, 'could not be written', err);
      }
      this.stored.add(id);
      return stored;
    });
  }

  /**
   * The newest checkpoint that loads, walking every stored id newest to oldest; each unreadable one (missing
   * half, bad bytes, bad schema, unknown format) goes to `onCorrupt` and the next older is tried. Null if none.
   */
  async loadNewestValid(onCorrupt: (id: string, reason: string) => void): Promise<CognitiveCheckpoint | null> {
    const ids = await this.readIds();
    for (const id of ids.reverse()) {
      try {
        return await this.load(id);
      } catch (err) {
        if (!(err instanceof VigilError) || !err.code.startsWith('CHECKPOINT_')) throw err;
        onCorrupt(id, err.message);
      }
    }
    return null;
  }

  /** Removes a checkpoint's body and index entry in one sync batch; CHECKPOINT_NOT_FOUND if neither exists. */
  async delete(id: string): Promise<void> {
    await this.exclusive(async () => {
      const ids = await this.readIds();
      if (!ids.includes(id))
        throw new VigilError('CHECKPOINT_NOT_FOUND', `No checkpoint with id ${id} exists.`, { data: { id } });
      try {
        await writeSyncBatch(this.db, this.delOps(id));
      } catch (err) {
        throw toStoreError(err, `delete checkpoint ${id}`);
      }
      this.stored.delete(id);
    });
  }

  /** Deletes everything beyond the newest `maxCount` (bodies and index entries alike); returns the ids removed. */
  async prune(maxCount: number): Promise<string[]> {
    assertMaxCount(maxCount);
    return this.exclusive(async () => {
      const { pruned: candidates } = splitNewest(await this.readIds(), maxCount);
      const pruned = await this.prunable(candidates);
      if (pruned.length === 0) return pruned;
      try {
        await writeSyncBatch(
          this.db,
          pruned.flatMap((id) => this.delOps(id)),
        );
      } catch (err) {
        throw toStoreError(err, 'prune checkpoints');
      }
      for (const id of pruned) this.stored.delete(id);
      return pruned;
    });
  }

  /** How many checkpoints `list` can show (index entries). */
  async count(): Promise<number> {
    try {
      return (await this.index.keys().all()).length;
    } catch (err) {
      throw toStoreError(err, 'count checkpoints');
    }
  }

  private prunable(candidates: string[]): Promise<string[]> {
    return prunableIds(candidates, { db: this.db, bodies: this.bodies, cipher: this.cipher });
  }

  private putOps(bytes: Uint8Array, meta: CheckpointMeta): VigilBatchOp[] {
    return [
      { type: 'put', sublevel: this.bodies, key: meta.id, value: bytes },
      { type: 'put', sublevel: this.index, key: meta.id, value: meta },
    ];
  }

  private delOps(id: string): VigilBatchOp[] {
    return [
      { type: 'del', sublevel: this.bodies, key: id },
      { type: 'del', sublevel: this.index, key: id },
    ];
  }

  /** Every stored id, from the index or the bodies, oldest first. */
  private async allIds(): Promise<string[]> {
    const [indexed, bodies] = await Promise.all([this.index.keys().all(), this.bodies.keys().all()]);
    return [...new Set([...indexed, ...bodies])].sort(compareIds);
  }

  /** Every stored id read from disk: for a boot's walk, a delete and a prune (rare); a save uses the ids kept in memory. */
  private async readIds(): Promise<string[]> {
    try {
      return await this.allIds();
    } catch (err) {
      throw toStoreError(err, 'read the checkpoint ids');
    }
  }

  /** The stored ids, oldest first: kept in memory once open, read from disk before. */
  private async storedIds(): Promise<string[]> {
    return this.opened ? [...this.stored].sort(compareIds) : this.allIds();
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writes.then(fn, fn);
    // Only the queue's tail swallows a failure (the next write still runs); the caller gets it from `run`.
    this.writes = run.catch(() => undefined);
    return run;
  }
}

/** An index entry's stored bytes as JSON; CHECKPOINT_CORRUPT when they are not JSON. */
function indexEntryJson(id: string, entry: Uint8Array): unknown {
  try {
    return parseStoredJson(entry);
  } catch (err) {
    throw new VigilError('CHECKPOINT_CORRUPT', `Checkpoint ${id} could not be read: ${describeError(err)}.`, {
      cause: err,
    });
  }
}
