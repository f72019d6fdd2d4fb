/**
 * The journal's storage format: one LevelDB entry per run of consecutive seqs, keyed by its first seq, its value the
 * run's events as a JSON array. A data dir written before batching holds one event object per key; such a value reads
 * as an entry of one, so it is carried over as it is, with no rewrite.
 */
import type { VigilEvent } from '../../protocol/events.schema.js';

// Seqs are safe integers: 16 digits zero-padded sort numerically as strings.
const SEQ_WIDTH = 16;

/** The key of the entry whose first event has this seq. */
export const seqKey = (seq: number): string => String(Math.max(0, Math.floor(seq))).padStart(SEQ_WIDTH, '0');

/** What an entry holds on disk: the events of a run, or one event (the format before batching). */
export type JournalEntry = VigilEvent | readonly VigilEvent[];

/** An entry's events, oldest first. */
export function entryEvents(entry: JournalEntry): readonly VigilEvent[] {
  return isRun(entry) ? entry : [entry];
}

function isRun(entry: JournalEntry): entry is readonly VigilEvent[] {
  return Array.isArray(entry);
}

/**
 * `events` (in seq order) cut where a seq is skipped, so that no entry's range of seqs overlaps another's: an event
 * written with its fact (an entry of its own) sits in the gap it leaves in the batch around it. A read after a seq can
 * then start at the one entry whose key is the greatest at or below the seq it wants.
 */
export function runsOf(events: readonly VigilEvent[]): VigilEvent[][] {
  const runs: VigilEvent[][] = [];
  let run: VigilEvent[] = [];
  for (const event of events) {
    const last = run.at(-1);
    if (last !== undefined && event.seq !== last.seq + 1) {
      runs.push(run);
      run = [];
    }
    run.push(event);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** What a read over entries keeps: seqs in `(after, upTo]` matching `matches`, each seq once. */
export interface EntryFilter {
  after: number;
  upTo: number;
  matches: (type: string) => boolean;
}

/** Appends to `found` (oldest first, up to `limit`) what `entries` (oldest first) hold past the last seq found. */
export async function collectForward(
  entries: AsyncIterable<JournalEntry>,
  filter: EntryFilter,
  limit: number,
  found: VigilEvent[] = [],
): Promise<VigilEvent[]> {
  let last = filter.after;
  for await (const entry of entries) {
    for (const event of entryEvents(entry)) {
      // Seqs only grow along the keys; one met twice (an older entry rewritten) is read once.
      if (event.seq <= last || event.seq > filter.upTo) continue;
      last = event.seq;
      if (!filter.matches(event.type)) continue;
      found.push(event);
      if (found.length >= limit) return found;
    }
  }
  return found;
}

/** The newest `limit` matching events of `entries` (newest entry first), returned oldest first. */
export async function collectBackward(
  entries: AsyncIterable<JournalEntry>,
  filter: EntryFilter,
  limit: number,
): Promise<VigilEvent[]> {
  const found: VigilEvent[] = [];
  let last = Number.POSITIVE_INFINITY;
  for await (const entry of entries) {
    const events = entryEvents(entry);
    for (let i = events.length - 1; i >= 0; i -= 1) {
      const event = events[i]!;
      if (event.seq >= last || event.seq > filter.upTo || event.seq <= filter.after) continue;
      last = event.seq;
      if (!filter.matches(event.type)) continue;
      found.push(event);
      if (found.length >= limit) return found.reverse();
    }
  }
  return found.reverse();
}
