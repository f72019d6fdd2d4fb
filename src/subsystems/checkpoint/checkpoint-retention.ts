/** Which checkpoints a store keeps: ids in LevelDB's order, the newest `maxCount` of them, and bodies sealed elsewhere. */
import type { AbstractSublevel } from 'abstract-level';
import { VigilError } from '../../errors.js';
import { SealedLevel } from '../store/sealed-level.js';
import type { VigilDb } from '../store/vigil-db.js';
import { isSealed, type CheckpointCipher } from './checkpoint-cipher.js';

/** Splits ids into the newest `maxCount` and the rest; ids may repeat and arrive in any order. */
export function splitNewest(ids: string[], maxCount: number): { kept: string[]; pruned: string[] } {
  const newestFirst = [...new Set(ids)].sort(compareIds).reverse();
  return { kept: newestFirst.slice(0, maxCount), pruned: newestFirst.slice(maxCount) };
}

/** Plain code-unit order, which matches LevelDB's byte order for the ASCII ids the id factory makes. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** INTERNAL unless `maxCount` is an integer of at least 1. */
export function assertMaxCount(maxCount: number): void {
  if (!Number.isInteger(maxCount) || maxCount < 1) {
    throw new VigilError('INTERNAL', `The checkpoint max count ${maxCount} must be an integer of at least 1.`);
  }
}

/** What `prunableIds` reads: the store's database, its bodies, and the key it holds (none: bodies are plain). */
export interface PruneScope {
  db: VigilDb;
  bodies: Pick<AbstractSublevel<VigilDb, unknown, string, Uint8Array>, 'get'>;
  cipher: CheckpointCipher | null;
}

/**
 * The prune candidates that may go: all but those sealed with a key this store does not hold (or in a newer sealed
 * format). A daemon started without its key, or with a mistyped one, cold-starts; without this it would prune the
 * agent's real history away within VIGIL_CHECKPOINT_MAX_COUNT checkpoints. Such bodies stay until deleted by hand.
 */
export async function prunableIds(candidates: string[], { db, bodies, cipher }: PruneScope): Promise<string[]> {
  if (candidates.length === 0) return candidates;
  // A store sealed with this same key holds no body of another key: its first keyed boot refused any, and every
  // body since was sealed (or imported after opening) with this one. Nothing to read to find none.
  if (cipher !== null && db instanceof SealedLevel && db.keyId === cipher.keyId) return candidates;
  // An unreadable body (damaged table) is pruned as before: only a readable foreign seal is worth keeping.
  const read = await Promise.all(candidates.map((id) => bodies.get(id).catch(() => undefined)));
  return candidates.filter((_, i) => {
    const body = read[i];
    if (body === undefined || !isSealed(body)) return true;
    return cipher !== null && cipher.sealedWithThisKey(body);
  });
}
