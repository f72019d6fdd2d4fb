/** The checkpoint store: compressed bodies and a JSON index in two LevelDB sublevels, keyed by time-sortable id, written in one sync batch. */
import { VigilError, describeError } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { createIdFactory, type IdFactory } from '../../shared/ids.js';
import { SUBLEVELS, hasLevelCode, toStoreError, writeSyncBatch, type VigilBatchOp, type VigilDb } from '../store/vigil-db.js';
import { decodeCheckpoint, encodeCheckpoint, summariseIssues } from './checkpoint.codec.js';
import { migrateCheckpoint, type Migrate } from './checkpoint.migrations.js';
import {
  CheckpointMetaSchema,
  CognitiveCheckpointSchema,
  type CheckpointMeta,
  type CognitiveCheckpoint,
} from './checkpoint.schema.js';

/** The prefix of checkpoint ids (`ck-0mjv3k9q2a1-0000-3f9a`). */
export const CHECKPOINT_ID_PREFIX = 'ck-';

/** Options for the store: the migrator used on load (the production one by default). */
export interface CheckpointStoreOptions {
  migrate?: Migrate;
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

/** A checkpoint as stored: its compressed body and its index entry. */
export interface RawCheckpoint {
  bytes: Uint8Array;
  meta: CheckpointMeta;
}

/** Saves, lists, loads and prunes checkpoints; writes are serialised so each prune sees every earlier save. */
export class CheckpointStore {
  private readonly bodies;
  private readonly index;
  private readonly ids: IdFactory;
  private readonly migrate: Migrate;
  private opened = false;
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
  }

  /** Seeds the id factory from the newest stored id, in the index or among bodies, so ids stay monotonic across restarts. */
  async open(): Promise<void> {
    try {
      const [newestIndexed] = await this.index.keys({ reverse: true, limit: 1 }).all();
      const [newestBody] = await this.bodies.keys({ reverse: true, limit: 1 }).all();
      if (newestIndexed !== undefined) this.ids.observe(newestIndexed);
      if (newestBody !== undefined) this.ids.observe(newestBody);
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

  /** Stores `cp` and prunes beyond the newest `maxCount` (counting it), all in one sync batch. */
  async save(cp: CognitiveCheckpoint, maxCount: number): Promise<CheckpointSaveResult> {
    assertMaxCount(maxCount);
    const checked = CognitiveCheckpointSchema.safeParse(cp);
    if (!checked.success) {
      throw new VigilError('CHECKPOINT_SAVE_FAILED', `Checkpoint ${cp.id} does not match the schema: ${summariseIssues(checked.error)}.`);
    }
    let bytes: Uint8Array;
    try {
      bytes = await encodeCheckpoint(cp);
    } catch (err) {
      throw saveFailed(cp.id, 'could not be encoded', err);
    }
    const meta: CheckpointMeta = {
      id: cp.id,
      createdAt: cp.createdAt,
      beatCount: cp.beatCount,
      sizeBytes: bytes.byteLength,
      formatVersion: cp.formatVersion,
    };
    return this.exclusive(async () => {
      this.ids.observe(cp.id);
      try {
        const { kept, pruned } = splitNewest([...(await this.allIds()), cp.id], maxCount);
        const ops: VigilBatchOp[] = kept.includes(cp.id) ? this.putOps(bytes, meta) : [];
        ops.push(...pruned.flatMap((id) => this.delOps(id)));
        await writeSyncBatch(this.db, ops);
        return { id: cp.id, sizeBytes: bytes.byteLength, pruned };
      } catch (err) {
        throw saveFailed(cp.id, 'could not be written', err);
      }
    });
  }

  /** Index entries, newest first, without touching any body. */
  async list(options: ListCheckpointsOptions = {}): Promise<CheckpointMeta[]> {
    try {
      const entries = await this.index
        .iterator({
          reverse: true,
          ...(options.before !== undefined && { lt: options.before }),
          ...(options.limit !== undefined && { limit: Math.max(0, Math.floor(options.limit)) }),
        })
        .all();
      // A malformed index entry is skipped here; `loadNewestValid` reports it.
      return entries.flatMap(([, value]) => {
        const meta = CheckpointMetaSchema.safeParse(value);
        return meta.success ? [meta.data] : [];
      });
    } catch (err) {
      throw toStoreError(err, 'list checkpoints');
    }
  }

  /** The decoded checkpoint; CHECKPOINT_NOT_FOUND if absent, CHECKPOINT_CORRUPT / CHECKPOINT_FORMAT_UNSUPPORTED if unreadable. */
  async load(id: string): Promise<CognitiveCheckpoint> {
    const raw = await this.loadRaw(id);
    const cp = await decodeCheckpoint(raw.bytes, this.migrate, `Checkpoint ${id}`);
    if (cp.id !== id) {
      throw new VigilError('CHECKPOINT_CORRUPT', `Checkpoint ${id} holds the body of checkpoint ${cp.id}.`);
    }
    return cp;
  }

  /** The stored bytes and index entry, undecoded (for export); a missing half is CHECKPOINT_CORRUPT. */
  async loadRaw(id: string): Promise<RawCheckpoint> {
    let bytes: Uint8Array | undefined;
    let meta: unknown;
    try {
      [bytes, meta] = await Promise.all([this.bodies.get(id), this.index.get(id)]);
    } catch (err) {
      if (hasLevelCode(err, 'LEVEL_CORRUPTION') || hasLevelCode(err, 'LEVEL_DECODE_ERROR')) {
        throw new VigilError('CHECKPOINT_CORRUPT', `Checkpoint ${id} could not be read: ${describeError(err)}.`, { cause: err });
      }
      throw toStoreError(err, `read checkpoint ${id}`);
    }
    if (bytes === undefined && meta === undefined) {
      throw new VigilError('CHECKPOINT_NOT_FOUND', `No checkpoint with id ${id} exists.`, { data: { id } });
    }
    if (bytes === undefined) throw new VigilError('CHECKPOINT_CORRUPT', `Checkpoint ${id} has an index entry but no body.`);
    if (meta === undefined) throw new VigilError('CHECKPOINT_CORRUPT', `Checkpoint ${id} has a body but no index entry.`);
    const parsed = CheckpointMetaSchema.safeParse(meta);
    if (!parsed.success) {
      throw new VigilError('CHECKPOINT_CORRUPT', `Checkpoint ${id} has an invalid index entry: ${summariseIssues(parsed.error)}.`);
    }
    return { bytes, meta: parsed.data };
  }

  /** Stores already-encoded bytes (for import) after checking they decode to checkpoint `id`; one sync batch, no prune. */
  async putRaw(id: string, bytes: Uint8Array, meta: CheckpointMeta): Promise<CheckpointMeta> {
    const cp = await decodeCheckpoint(bytes, this.migrate, `Checkpoint ${id}`);
    const parsedMeta = CheckpointMetaSchema.safeParse(meta);
    if (cp.id !== id || !parsedMeta.success || parsedMeta.data.id !== id) {
      throw new VigilError('CHECKPOINT_CORRUPT', `Checkpoint ${id} does not match its body or index entry.`);
    }
    const stored: CheckpointMeta = { ...parsedMeta.data, sizeBytes: bytes.byteLength };
    return this.exclusive(async () => {
      this.ids.observe(id);
      try {
        await writeSyncBatch(this.db, this.putOps(bytes, stored));
      } catch (err) {
        throw saveFailed(id, 'could not be written', err);
      }
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
      if (!ids.includes(id)) throw new VigilError('CHECKPOINT_NOT_FOUND', `No checkpoint with id ${id} exists.`, { data: { id } });
      try {
        await writeSyncBatch(this.db, this.delOps(id));
      } catch (err) {
        throw toStoreError(err, `delete checkpoint ${id}`);
      }
    });
  }

  /** Deletes everything beyond the newest `maxCount` (bodies and index entries alike); returns the ids removed. */
  async prune(maxCount: number): Promise<string[]> {
    assertMaxCount(maxCount);
    return this.exclusive(async () => {
      const { pruned } = splitNewest(await this.readIds(), maxCount);
      if (pruned.length === 0) return pruned;
      try {
        await writeSyncBatch(this.db, pruned.flatMap((id) => this.delOps(id)));
      } catch (err) {
        throw toStoreError(err, 'prune checkpoints');
      }
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

  private async readIds(): Promise<string[]> {
    try {
      return await this.allIds();
    } catch (err) {
      throw toStoreError(err, 'read the checkpoint ids');
    }
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writes.then(fn, fn);
    this.writes = run.catch(() => undefined);
    return run;
  }
}

/** Splits ids into the newest `maxCount` and the rest; ids may repeat and arrive in any order. */
function splitNewest(ids: string[], maxCount: number): { kept: string[]; pruned: string[] } {
  const newestFirst = [...new Set(ids)].sort(compareIds).reverse();
  return { kept: newestFirst.slice(0, maxCount), pruned: newestFirst.slice(maxCount) };
}

// Plain code-unit order, which matches LevelDB's byte order for the ASCII ids the factory makes.
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function assertMaxCount(maxCount: number): void {
  if (!Number.isInteger(maxCount) || maxCount < 1) {
    throw new VigilError('INTERNAL', `The checkpoint max count ${maxCount} must be an integer of at least 1.`);
  }
}

function saveFailed(id: string, what: string, err: unknown): VigilError {
  return new VigilError('CHECKPOINT_SAVE_FAILED', `Checkpoint ${id} ${what}: ${describeError(err).replace(/\.$/, '')}.`, {
    cause: err,
  });
}
