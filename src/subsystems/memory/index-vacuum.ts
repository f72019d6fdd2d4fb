/**
 * How Vigil's MiniSearch indexes vacuum (clean the inverted index of documents `discard`ed from it). MiniSearch's
 * default vacuums in batches with a wait between them, walking its term tree with an iterator that remembers each
 * node's keys: a document added or removed during a wait can split or merge a node the walk has not reached yet, and
 * the walk then fails ("Cannot read properties of undefined (reading 'keys')", an unhandled rejection; found by the
 * simulator). So the vacuum runs in one batch, in the turn of the `discard` that starts it, when nothing else can touch
 * the index. It starts only after 20 discards that make a tenth of the index dirty (MiniSearch's own thresholds), and
 * walks postings already in memory: a few milliseconds at the sizes Vigil keeps.
 */
import type { Options } from 'minisearch';

/** MiniSearch's `autoVacuum` option for every Vigil index that uses `discard`. */
export const inOneBatchAutoVacuum: NonNullable<Options['autoVacuum']> = {
  batchSize: Number.MAX_SAFE_INTEGER,
  batchWait: 0,
  minDirtCount: 20,
  minDirtFactor: 0.1,
};
