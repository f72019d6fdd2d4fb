/** The simulated year's report: what it judges (each ratio, the data dir's bound, the heap) and how it says so. */

/** At most this much slower at a year than at a week, for each measured operation. */
export const YEAR_MAX_RATIO = 1.2;
/** The data dir's bound over the year (docs/testing.md). */
export const YEAR_DATA_DIR_BOUND_BYTES = 64 * 1024 * 1024;

/**
 * The simulating process's heap after GC may grow by at most this factor over the year, or this many bytes: it also
 * holds what V8 compiles and tunes as the year takes new paths, which a runtime's own heap (judged apart) does not.
 */
const HEAP_MAX_GROWTH = { ratio: 1.2, bytes: 8 * 1024 * 1024 };

/** What one dir costs, by median. */
export interface Costs {
  bootMs: number;
  promptMs: number;
  searchMs: number;
  checkpointMs: number;
}

/** Logs the whole year's report; true when every ratio and bound holds. */
export function reportYear(args: {
  rounds: number;
  log: (line: string) => void;
  days: number;
  young: readonly Costs[];
  old: readonly Costs[];
  twin: readonly Costs[];
  held: Probes['held'];
  bound: number;
  heap: number[];
  memories: number[];
  /** What long-term memory holds in RAM at the end minus in the first week (longTermMemoryBytes). */
  memoryGrowth: number;
  /** What the conversation's search index holds in RAM at the end minus in the first week (conversationIndexBytes). */
  conversationGrowth: number;
  maxBytes: number;
  finalBytes: number;
  thinks: number;
  minutes: number;
}): boolean {
  const { log, young, old, twin, held, heap } = args;
  let ok = true;
  log(
    `simulated ${args.days} days (${args.thinks} thinks) in ${args.minutes.toFixed(1)} min; paired measurement, ${args.rounds} rounds, medians:`,
  );
  const memories = [args.memories[0] ?? 0, args.memories[args.memories.length - 1] ?? 0] as const;
  ok = reportRatios(log, { young, old, twin, held, memories, bound: args.bound }) && ok;
  const dirOk = args.maxBytes <= YEAR_DATA_DIR_BOUND_BYTES;
  ok &&= dirOk;
  log(
    `  data dir: at most ${mb(args.maxBytes)}, ${mb(args.finalBytes)} at the end (bound ${mb(YEAR_DATA_DIR_BOUND_BYTES)}) ${dirOk ? 'ok' : 'MISSED'}`,
  );
  const first = heap[0] ?? 0;
  const last = heap[heap.length - 1] ?? 0;
  // Long-term memory grows up to its bound (VIGIL_MEMORY_MAX_COUNT), and what it holds in RAM with it (its records and
  // their search index); so does the conversation's search index, up to the messages retention keeps. That growth,
  // measured on the first week's data and the last, is set apart; the rest must be flat.
  const rest = last - args.memoryGrowth - args.conversationGrowth;
  const heapOk = rest <= Math.max(first * HEAP_MAX_GROWTH.ratio, first + HEAP_MAX_GROWTH.bytes);
  ok &&= heapOk;
  const [memoriesFirst = 0, memoriesLast = 0] = [args.memories[0], args.memories[args.memories.length - 1]];
  log(
    `  the simulating process's heap after GC: ${mb(first)} after the first week, ${mb(last)} at the end; of the growth, ${mb(args.memoryGrowth)} is ` +
      `long-term memory's (${memoriesFirst} → ${memoriesLast} memories), ${mb(args.conversationGrowth)} the conversation index's, ${mb(rest - first)} the rest ${heapOk ? 'ok' : 'MISSED'}`,
  );
  return ok;
}

/** The probes of a year's dirs: the first week's, the aged one's, and a fresh dir holding the aged one's memories. */
export interface Probes {
  young: readonly Costs[];
  old: readonly Costs[];
  twin: readonly Costs[];
  /** The heap a runtime holds (runtimeHeap) on the aged dir and on the twin, in paired rounds. */
  held: { old: readonly number[]; twin: readonly number[] };
  /** Long-term memories in the first week's dir and in the aged one. */
  memories: readonly [number, number];
  /** VIGIL_MEMORY_MAX_COUNT of the run. */
  bound: number;
}

/**
 * Logs each operation's first-week and aged medians and their ratio; true when every ratio is within the limit.
 * `memory.search` costs in proportion to the memories kept (every memory holding a query word is scored), and so does
 * a think's prompt build, which recalls memories for the think by such a search: until long-term memory reaches its
 * bound the first week is no yardstick for them. Their age is judged against a fresh data dir holding the same
 * memories (the twin), and against the first week as well once the first week was at the bound.
 */
export function reportRatios(log: (line: string) => void, probes: Probes): boolean {
  const { young, old, twin, held, memories, bound } = probes;
  let ok = true;
  for (const [key, label] of [
    ['bootMs', 'boot'],
    ['checkpointMs', 'a checkpoint save'],
  ] as const) {
    const week = median(young.map((c) => c[key]));
    const aged = median(old.map((c) => c[key]));
    const ratio = aged / week;
    const pass = ratio <= YEAR_MAX_RATIO;
    ok &&= pass;
    log(
      `  ${label}: first week ${week.toFixed(2)} ms, after the year ${aged.toFixed(2)} ms, ratio ${ratio.toFixed(2)} ${pass ? 'ok' : `MISSED (over ${YEAR_MAX_RATIO})`}`,
    );
  }
  // The first week at the bound: it had already forgotten to stay within it (down to 1 % below).
  const weekAtBound = memories[0] >= bound - Math.floor(bound / 100);
  for (const [key, label] of [
    ['promptMs', "a think's prompt build (it recalls memories)"],
    ['searchMs', 'memory.search'],
  ] as const) {
    const week = median(young.map((c) => c[key]));
    const aged = median(old.map((c) => c[key]));
    const fresh = median(twin.map((c) => c[key]));
    const ageOk = aged / fresh <= YEAR_MAX_RATIO;
    const weekOk = !weekAtBound || aged / week <= YEAR_MAX_RATIO;
    ok &&= ageOk && weekOk;
    log(
      `  ${label}: a fresh data dir holding the aged dir's ${memories[1]} memories ${fresh.toFixed(3)} ms, the aged dir ` +
        `${aged.toFixed(3)} ms, ratio ${(aged / fresh).toFixed(2)} ${ageOk ? 'ok' : `MISSED (over ${YEAR_MAX_RATIO})`}; first week ` +
        `${week.toFixed(3)} ms at ${memories[0]} memories, ratio ${(aged / week).toFixed(2)} ` +
        (weekAtBound
          ? weekOk
            ? 'ok (the first week was at the bound)'
            : `MISSED (over ${YEAR_MAX_RATIO}; the first week was at the bound)`
          : `(not judged: memory grows to its bound of ${bound}, and this with it)`),
    );
  }
  // The same question for the heap: what a runtime holds for the same memories with and without the year behind them.
  const [heldOld, heldTwin] = [median(held.old), median(held.twin)];
  const heldOk = heldOld / heldTwin <= YEAR_MAX_RATIO;
  ok &&= heldOk;
  log(
    `  a runtime's heap after ${held.old.length} paired boots and a day's messages: on a fresh data dir holding the aged ` +
      `dir's memories ${mb(heldTwin)}, on the aged dir ${mb(heldOld)}, ratio ${(heldOld / heldTwin).toFixed(2)} ` +
      (heldOk ? 'ok' : `MISSED (over ${YEAR_MAX_RATIO})`),
  );
  return ok;
}

export function median(values: readonly number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
