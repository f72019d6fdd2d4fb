/** Opening the data dir's LevelDB database, and the few helpers every store module shares (types, sync batches, error mapping). */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AbstractBatchOperation, AbstractBatchOptions, AbstractLevel } from 'abstract-level';
import { Level } from 'level';
import { VigilError, describeError, type VigilErrorCode } from '../../errors.js';

/** The database every store module takes: string keys at the root; both on-disk `Level` and `MemoryLevel` satisfy it. */
export type VigilDb = AbstractLevel<string | Buffer | Uint8Array, string, string>;

/** One operation of an atomic batch on the root database, usually aimed at a sublevel via `sublevel`. */
export type VigilBatchOp = AbstractBatchOperation<VigilDb, string, unknown>;

/** The sublevel names in use, listed once so two modules never share a prefix by accident. */
export const SUBLEVELS = {
  checkpointBodies: 'checkpoint-body',
  checkpointIndex: 'checkpoint-index',
  seq: 'seq',
  conversation: 'conversation',
  conversationArchive: 'conversation-archive',
  conversationArchives: 'conversation-archives',
  conversationMeta: 'conversation-meta',
  swarmResults: 'swarm-results',
  eventJournal: 'event-journal',
  budgetLedger: 'budget-ledger',
} as const;

// `sync` is a classic-level option that abstract-level's types do not declare; memory-level ignores it.
const SYNC_WRITE = { sync: true } as AbstractBatchOptions<string, unknown> & { sync: true };

/** Commits `ops` atomically and durably: LevelDB fsyncs its log before the promise resolves. */
export function writeSyncBatch(db: VigilDb, ops: VigilBatchOp[]): Promise<void> {
  return db.batch<string, unknown>(ops, SYNC_WRITE);
}

/** The location of the LevelDB files inside a data dir. */
export function vigilDbLocation(dataDir: string): string {
  return join(dataDir, 'db');
}

/** Opens (creating if needed) the LevelDB database at `<dataDir>/db`; STORE_LOCKED when another daemon holds it, STORE_IO otherwise. */
export async function openVigilDb(dataDir: string): Promise<VigilDb> {
  const location = vigilDbLocation(dataDir);
  try {
    await mkdir(location, { recursive: true });
  } catch (err) {
    throw new VigilError('STORE_IO', `The data dir ${dataDir} could not be created: ${describeError(err)}.`, { cause: err });
  }
  const db = new Level<string, string>(location);
  try {
    await db.open();
  } catch (err) {
    throw openError(err, dataDir, 'opened');
  }
  return db;
}

/** Runs LevelDB's repair on `<dataDir>/db` (salvages what it can from damaged files); the database must be closed. */
export async function repairVigilDb(dataDir: string): Promise<void> {
  // In Node `Level` is classic-level's ClassicLevel, whose static `repair` the `level` typings leave out.
  const repairable = Level as unknown as { repair(location: string): Promise<void> };
  try {
    await repairable.repair(vigilDbLocation(dataDir));
  } catch (err) {
    throw openError(err, dataDir, 'repaired');
  }
}

/** Maps a failed read or query to a VigilError: RUNTIME_STOPPED once the database is closed, STORE_IO otherwise; VigilErrors pass through. */
export function toStoreError(err: unknown, what: string): VigilError {
  if (err instanceof VigilError) return err;
  const code: VigilErrorCode = hasLevelCode(err, 'LEVEL_DATABASE_NOT_OPEN') ? 'RUNTIME_STOPPED' : 'STORE_IO';
  return new VigilError(code, `The store could not ${what}: ${describeError(err)}.`, { cause: err });
}

function openError(err: unknown, dataDir: string, verb: string): VigilError {
  if (hasLevelCode(err, 'LEVEL_LOCKED')) {
    return new VigilError('STORE_LOCKED', `The data dir ${dataDir} is in use by another Vigil daemon.`, { cause: err });
  }
  // abstract-level wraps the implementation's error (e.g. LEVEL_LOCKED) as the `cause` of LEVEL_DATABASE_NOT_OPEN.
  const reason = describeError(errorCause(err) ?? err);
  return new VigilError('STORE_IO', `The store in data dir ${dataDir} could not be ${verb}: ${reason}.`, { cause: err });
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
