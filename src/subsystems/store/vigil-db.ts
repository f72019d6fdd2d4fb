/** Opening the data dir's LevelDB database, and the few helpers every store module shares (types, sync batches, error mapping). */
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AbstractBatchOperation, AbstractBatchOptions, AbstractLevel } from 'abstract-level';
import { Level } from 'level';
import { VigilError, describeError, isVigilError, type VigilErrorCode } from '../../errors.js';
import { PRIVATE_DIR_MODE } from '../../shared/private-files.js';
import { dataDirError } from '../../shared/data-dir-check.js';

/** The database every store module takes: string keys at the root; both on-disk `Level` and `MemoryLevel` satisfy it. */
export type VigilDb = AbstractLevel<string | Buffer | Uint8Array, string, string>;

/** One operation of an atomic batch on the root database, usually aimed at a sublevel via `sublevel`. */
export type VigilBatchOp = AbstractBatchOperation<VigilDb, string, unknown>;

/**
 * The sublevel names in use, listed once so two modules never share a prefix by accident. With VIGIL_CHECKPOINT_KEY
 * every value is sealed (`sealed-level.ts`) but keys are stored as they are: a key must never hold user text (use
 * ids, seqs, dates), only values may.
 */
export const SUBLEVELS = {
  checkpointBodies: 'checkpoint-body',
  checkpointIndex: 'checkpoint-index',
  seq: 'seq',
  conversation: 'conversation',
  conversationArchive: 'conversation-archive',
  conversationArchives: 'conversation-archives',
  conversationMeta: 'conversation-meta',
  swarmResults: 'swarm-results',
  swarmTasks: 'swarm-tasks',
  eventJournal: 'event-journal',
  budgetLedger: 'budget-ledger',
  turnTimers: 'turn-timers',
  toolCalls: 'tool-calls',
  /** The seal canary: present when the data dir is sealed, and with which key. */
  storeMeta: 'store-meta',
  thinkTraces: 'think-traces',
  thinkTraceDetails: 'think-trace-details',
  conversationSummary: 'conversation-summary',
  longTermMemory: 'long-term-memory',
  longTermMemoryMeta: 'long-term-memory-meta',
  /** Embedding vectors of searchable records, by corpus, model and record seq (semantic search). */
  embeddings: 'embeddings',
  schedules: 'schedules',
  /** Scoped gateway tokens (their salted hashes, never the secrets). */
  gatewayTokens: 'gateway-tokens',
  /** The dashboard's browser sessions: only the moment of the last "sign out everywhere" (the sessions are cookies). */
  gatewaySessions: 'gateway-sessions',
  /** Remote MCP servers' OAuth state, one record per server (client registration, tokens, pending sign-ins). */
  mcpOAuth: 'mcp-oauth',
  /** Webhook endpoints (their cursors and sealed signing secrets), by id. */
  webhooks: 'webhooks',
  /** Each endpoint's newest delivery attempts, by endpoint id and a counter. */
  webhookAttempts: 'webhook-attempts',
  /** Chat channels: each one's cursor, admitted messages, replies in flight, approved senders and pairings. */
  channels: 'channels',
  /** Tasks handed to the agent over A2A (`/a2a`): each one's owner, turn and the task as the A2A client reads it. */
  a2aTasks: 'a2a-tasks',
} as const;

// `sync` is a classic-level option that abstract-level's types do not declare; memory-level ignores it.
const SYNC_WRITE = { sync: true } as AbstractBatchOptions<string, unknown> & { sync: true };

/** Commits `ops` atomically and durably: LevelDB fsyncs its log before the promise resolves. */
export function writeSyncBatch(db: VigilDb, ops: VigilBatchOp[]): Promise<void> {
  return db.batch<string, unknown>(ops, SYNC_WRITE);
}

/** A sublevel of the root database, as far as `readTogether` needs it: where its keys live. */
export interface PrefixedSublevel {
  prefixKey(key: string, keyFormat: 'utf8'): string;
}

/**
 * The raw bytes stored under `key` in each of `sublevels`, read from one snapshot: a single `getMany` on the root
 * database. Two separate gets take two snapshots, and on LevelDB a batch committing on a worker thread between them
 * makes a record written (or deleted) in one batch look half there.
 */
export async function readTogether(
  db: VigilDb,
  key: string,
  sublevels: readonly PrefixedSublevel[],
): Promise<Array<Uint8Array | undefined>> {
  return db.getMany<string, Uint8Array>(
    sublevels.map((sublevel) => sublevel.prefixKey(key, 'utf8')),
    { keyEncoding: 'utf8', valueEncoding: 'view' },
  );
}

/** A JSON value stored as bytes (read by `readTogether`); LEVEL_DECODE_ERROR-like failures are the caller's to name. */
export function parseStoredJson(bytes: Uint8Array): unknown {
  return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
}

/**
 * Compacts the whole key range, so deleted and overwritten versions (pruned records, plaintext from before a key)
 * leave LevelDB's log and table files; a no-op on a database that cannot (memory-level).
 */
export async function compactVigilDb(db: VigilDb): Promise<void> {
  const compactable = db as unknown as {
    compactAll?: () => Promise<void>;
    compactRange?: (start: Buffer, end: Buffer, options: { keyEncoding: 'buffer' }) => Promise<void>;
  };
  if (compactable.compactAll !== undefined) return compactable.compactAll();
  // Every key Vigil writes is printable ASCII, so these bounds cover the whole database.
  await compactable.compactRange?.(Buffer.of(0x00), Buffer.alloc(8, 0xff), { keyEncoding: 'buffer' });
}

/**
 * Before a clean close: compacts the whole database when LevelDB holds table files at level 0 (each open turns the
 * previous run's log into one). Otherwise, every fourth open or so starts a compaction of them into level 1 while the
 * daemon boots, and since Vigil's keys span every table that compaction rewrites the whole store: a boot after months
 * (a full retention window, some 6 MB) measured ~20 ms slower than one after a week on such opens. Compacted at the
 * stop, the next open replays nothing and compacts nothing; after a `kill -9` LevelDB does as it always did. The stop
 * pays it instead, bounded by the data dir's size (~80 ms for 6 MB). A no-op on a database that cannot (memory-level).
 */
export async function compactBeforeClose(db: VigilDb): Promise<boolean> {
  const inspectable = db as unknown as { getProperty?: (property: string) => string };
  if (inspectable.getProperty === undefined || db.status !== 'open') return false;
  if (Number(inspectable.getProperty('leveldb.num-files-at-level0')) === 0) return false;
  await compactVigilDb(db);
  return true;
}

/** The location of the LevelDB files inside a data dir. */
export function vigilDbLocation(dataDir: string): string {
  return join(dataDir, 'db');
}

/**
 * Opens (creating if needed) the LevelDB database at `<dataDir>/db`: STORE_LOCKED when another daemon holds it,
 * STORE_CORRUPT (with the repair command) when its files are damaged, STORE_IO otherwise.
 */
export async function openVigilDb(dataDir: string): Promise<VigilDb> {
  const location = vigilDbLocation(dataDir);
  try {
    // 0700 whatever the umask (an embedding program keeps its own): other users cannot reach a file inside.
    await mkdir(location, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (err) {
    // A file where the store's directory goes: this is no Vigil data dir, and repairing could not help (exit 2).
    const errno = (err as NodeJS.ErrnoException).code;
    if (errno === 'EEXIST' || errno === 'ENOTDIR') throw dataDirError(dataDir, location, err);
    throw new VigilError('STORE_IO', `The data dir ${dataDir} could not be created: ${describeError(err)}.`, {
      cause: err,
    });
  }
  await assertCurrentFile(dataDir);
  const db = new Level<string, string>(location);
  try {
    await db.open();
  } catch (err) {
    throw openError(err, dataDir, 'opened');
  }
  return db;
}

/** What `repairVigilDb` found afterwards: keys per sublevel, checkpoints (index entries), and files LevelDB set aside. */
export interface RepairReport {
  /** Keys by sublevel name (`checkpoint-index`, `conversation`, `budget-ledger`…). */
  keys: Record<string, number>;
  /** Checkpoint index entries that survived (each is validated again at boot). */
  checkpoints: number;
  /** Files LevelDB could not use and moved to `<dataDir>/db/lost`. */
  lostFiles: string[];
}

/**
 * Runs LevelDB's repair on `<dataDir>/db` (rebuilds MANIFEST and CURRENT, salvages readable entries of damaged
 * tables, sets unusable files aside in `db/lost`) and reports what is left. Refuses with STORE_LOCKED while another
 * daemon holds the data dir: LevelDB's repair takes no lock and would rewrite files under a running database.
 */
export async function repairVigilDb(dataDir: string): Promise<RepairReport> {
  const location = vigilDbLocation(dataDir);
  await assertNotInUse(dataDir);
  // In Node `Level` is classic-level's ClassicLevel, whose static `repair` the `level` typings leave out.
  const repairable = Level as unknown as { repair(location: string): Promise<void> };
  try {
    await repairable.repair(location);
  } catch (err) {
    throw openError(err, dataDir, 'repaired');
  }
  const db = await openVigilDb(dataDir);
  try {
    const keys: Record<string, number> = {};
    for await (const key of db.keys()) {
      // Sublevel keys are `!name!key`; anything else is counted under its own root.
      const name = key.startsWith('!') ? key.slice(1, key.indexOf('!', 1)) : '(root)';
      keys[name] = (keys[name] ?? 0) + 1;
    }
    const lostFiles = await readdir(join(location, 'lost')).catch(() => []);
    return { keys, checkpoints: keys[SUBLEVELS.checkpointIndex] ?? 0, lostFiles };
  } catch (err) {
    throw toStoreError(err, `count what the repair of data dir ${dataDir} recovered`);
  } finally {
    await db.close();
  }
}

/** The command that salvages a damaged data dir. */
export function repairCommand(dataDir: string): string {
  return `vigil run --repair --data-dir ${dataDir}`;
}

/**
 * A store error met while opening or reading the data dir at boot, with the data dir and the repair command added
 * (STORE_CORRUPT and STORE_IO; a read at boot can fail either way on a damaged table). Other errors pass through.
 */
export function withRepairHint(err: unknown, dataDir: string): unknown {
  if (
    !isVigilError(err) ||
    (err.code !== 'STORE_CORRUPT' && err.code !== 'STORE_IO') ||
    err.message.includes('--repair')
  )
    return err;
  return new VigilError(err.code, `${err.message} ${repairAdvice(err.code, dataDir)}`, {
    cause: err.cause ?? err,
    data: { dataDir, repair: repairCommand(dataDir) },
  });
}

/**
 * Maps a failed read or query to a VigilError: RUNTIME_STOPPED once the database is closed, STORE_CORRUPT when
 * LevelDB reports corruption, STORE_IO otherwise; VigilErrors pass through.
 */
export function toStoreError(err: unknown, what: string): VigilError {
  if (err instanceof VigilError) return err;
  const code: VigilErrorCode = hasLevelCode(err, 'LEVEL_DATABASE_NOT_OPEN')
    ? 'RUNTIME_STOPPED'
    : hasLevelCode(err, 'LEVEL_CORRUPTION')
      ? 'STORE_CORRUPT'
      : 'STORE_IO';
  return new VigilError(code, `The store could not ${what}: ${describeError(err)}.`, { cause: err });
}

function openError(err: unknown, dataDir: string, verb: 'opened' | 'repaired'): VigilError {
  if (hasLevelCode(err, 'LEVEL_LOCKED')) {
    return new VigilError('STORE_LOCKED', `The data dir ${dataDir} is in use by another Vigil daemon.`, { cause: err });
  }
  // abstract-level wraps the implementation's error (e.g. LEVEL_LOCKED) as the `cause` of LEVEL_DATABASE_NOT_OPEN.
  const reason = describeError(errorCause(err) ?? err).replace(/\.$/, '');
  const code: VigilErrorCode = hasLevelCode(err, 'LEVEL_CORRUPTION') ? 'STORE_CORRUPT' : 'STORE_IO';
  const message = `The store in data dir ${dataDir} could not be ${verb}: ${reason}.`;
  if (verb === 'repaired') return new VigilError(code, message, { cause: err });
  return new VigilError(code, `${message} ${repairAdvice(code, dataDir)}`, {
    cause: err,
    data: { dataDir, repair: repairCommand(dataDir) },
  });
}

function repairAdvice(code: 'STORE_CORRUPT' | 'STORE_IO', dataDir: string): string {
  const command = `"${repairCommand(dataDir)}"`;
  return code === 'STORE_CORRUPT'
    ? `The LevelDB files in data dir ${dataDir} are damaged: run ${command} to salvage what can still be read.`
    : `If the LevelDB files in data dir ${dataDir} are damaged (rather than the disk full or read-only), run ${command} to salvage what can still be read.`;
}

/**
 * LevelDB treats a directory without CURRENT as a new database: it would open empty and delete the table files it
 * does not know. Tables or logs without CURRENT are damage, not a fresh start.
 */
async function assertCurrentFile(dataDir: string): Promise<void> {
  let files: string[];
  try {
    files = await readdir(vigilDbLocation(dataDir));
  } catch {
    // Unreadable: the open that follows reports it with LevelDB's own reason.
    return;
  }
  if (files.includes('CURRENT') || !files.some((name) => /\.(ldb|sst|log)$/.test(name))) return;
  throw new VigilError(
    'STORE_CORRUPT',
    `The store in data dir ${dataDir} has LevelDB files but no CURRENT file; opening it as it is would start an empty database and delete them. ${repairAdvice('STORE_CORRUPT', dataDir)}`,
    { data: { dataDir, repair: repairCommand(dataDir) } },
  );
}

/** STORE_LOCKED when a live daemon holds the data dir's lock (an open without create, closed at once if it works). */
async function assertNotInUse(dataDir: string): Promise<void> {
  const probe = new Level<string, string>(vigilDbLocation(dataDir), { createIfMissing: false });
  try {
    await probe.open();
  } catch (err) {
    if (hasLevelCode(err, 'LEVEL_LOCKED')) {
      throw new VigilError(
        'STORE_LOCKED',
        `The data dir ${dataDir} is in use by another Vigil daemon; stop it before repairing.`,
        { cause: err },
      );
    }
    // Damaged or absent: exactly what the repair is for.
    return;
  }
  await probe.close();
}

/** True when `err` or one of its causes carries the abstract-level error `code` (e.g. `LEVEL_CORRUPTION`). */
export function hasLevelCode(err: unknown, code: string): boolean {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; e = errorCause(e), depth += 1) {
    if (typeof e === 'object' && (e as { code?: unknown }).code === code) return true;
  }
  return false;
}

function errorCause(err: unknown): unknown {
  return typeof err === 'object' && err !== null ? (err as { cause?: unknown }).cause : undefined;
}
