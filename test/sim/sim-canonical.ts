/**
 * A run's history as text that two runs of one seed must share byte for byte. Ids the runtime draws from
 * `crypto` (the random tail of turn and checkpoint ids, tool call ids) are renamed by first appearance, and
 * durations measured with `performance.now()` (and the compressed sizes and webhook body digests that depend on the
 * ids' bytes) are left out:
 * neither steers what the runtime does.
 */
import type { SimHistory } from './sim-history.js';

const RANDOM_IDS =
  /\b(?:[a-z]+-)?[0-9a-z]{11}-[0-9a-z]{4}-[0-9a-f]{4}\b|\bcall-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b(?:wh|evt_test|evt_\d+)_[0-9a-f]{16}\b/g;
const MEASURED = new Set(['durationMs', 'phaseMs', 'sizeBytes', 'bodyDigest']);

/** The history's canonical text. */
export function canonicalHistory(history: SimHistory): string {
  const names = new Map<string, string>();
  const rename = (text: string) =>
    text.replace(RANDOM_IDS, (id) => {
      let name = names.get(id);
      if (name === undefined) names.set(id, (name = `id${names.size + 1}`));
      return name;
    });
  const replacer = (key: string, value: unknown) => {
    if (MEASURED.has(key)) return undefined;
    if (value instanceof Set) return [...value];
    return typeof value === 'string' ? rename(value) : value;
  };
  const { log: _log, ...rest } = history;
  return JSON.stringify(rest, replacer);
}
