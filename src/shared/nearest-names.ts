/** "Did you mean": the known names nearest a misspelt one, for unknown RPC methods, variables and commands. */

/**
 * The edit distance between `a` and `b`: insertions, deletions, substitutions and swaps of two neighbouring
 * characters each count 1 (optimal string alignment), so `agent.sned` is 1 from `agent.send`.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  // Three rows suffice: a swap looks two rows back.
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i += 1) {
    current[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      current[j] = best;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}

/** How far a name may be from the one typed and still be offered: a third of its length, at least 2. */
export function maxSuggestionDistance(typed: string): number {
  return Math.max(2, Math.floor(typed.length / 3));
}

/** The text after the last `separator` (`send` in `agent.send`). */
function lastPart(name: string, separator: string): string {
  const at = name.lastIndexOf(separator);
  return at < 0 ? name : name.slice(at + separator.length);
}

/** Options of `nearestNames`. */
export interface NearestNamesOptions {
  /** At most this many names (default 3). */
  limit?: number;
  /**
   * Names are dotted (`agent.send`): a bare name typed without one is also matched against their last parts, however
   * far the whole is (`send` → `agent.send`; `status` → `heartbeat.status`, `budget.status`).
   */
  separator?: string;
}

/**
 * The `candidates` nearest `typed`, nearest first (ties in the candidates' order), case-insensitively; only those
 * within `maxSuggestionDistance(typed)`, or sharing the last part when a separator is given. Pure.
 */
export function nearestNames(
  typed: string,
  candidates: readonly string[],
  options: NearestNamesOptions = {},
): string[] {
  const { limit = 3, separator } = options;
  const wanted = typed.trim().toLowerCase();
  if (wanted === '') return [];
  const max = maxSuggestionDistance(wanted);
  const scored: { name: string; distance: number; order: number }[] = [];
  candidates.forEach((name, order) => {
    const lower = name.toLowerCase();
    if (name === typed.trim()) return;
    const distance = editDistance(wanted, lower);
    // Only a bare name (`send`) is matched by its last part: `foo.get` names a namespace, and every `*.get` is not it.
    const sameLastPart =
      separator !== undefined && !wanted.includes(separator) && lastPart(lower, separator) === wanted;
    // A shared last part ranks just after the names within one edit: `status` offers every `*.status`.
    if (distance <= max) scored.push({ name, distance, order });
    else if (sameLastPart) scored.push({ name, distance: 1.5, order });
  });
  scored.sort((x, y) => x.distance - y.distance || x.order - y.order);
  return scored.slice(0, limit).map((s) => s.name);
}
