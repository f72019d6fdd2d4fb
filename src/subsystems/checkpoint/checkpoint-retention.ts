/** Which checkpoints a store keeps: ids in LevelDB's order, and the newest `maxCount` of them. */
import { VigilError } from '../../errors.js';

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
