/**
 * Checks `--types` patterns against the event catalogue before subscribing: a filter that matches no event type
 * would print nothing and say nothing (`--types heartbeat`), so it is a usage error with the nearest names. Pure.
 */
import { ALL_EVENT_TYPES } from '../../protocol/events.schema.js';
import { LIVE_EVENT_TYPES } from '../../protocol/live-events.schema.js';
import { nearestNames } from '../../shared/nearest-names.js';

// Journaled types match exactly or by prefix; live-only ones exactly only (CONTRACT §13).
const JOURNALED: readonly string[] = ALL_EVENT_TYPES;
const EXACT: ReadonlySet<string> = new Set<string>([...ALL_EVENT_TYPES, ...LIVE_EVENT_TYPES]);
// Every namespace as a prefix pattern (`heartbeat.*`), offered beside the types.
const NAMESPACES: readonly string[] = [...new Set(JOURNALED.map((type) => `${type.split('.')[0]!}.*`))];

/** True when `pattern` matches at least one event type. */
function matchesSome(pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('*')) return JOURNALED.some((type) => type.startsWith(pattern.slice(0, -1)));
  return EXACT.has(pattern);
}

/** The names to offer for `pattern`: a namespace typed bare (`heartbeat`) first offers `heartbeat.*`. */
function suggestionsFor(pattern: string): string[] {
  const bare = pattern.replace(/\.?\*$/, '');
  const namespace = `${bare}.*`;
  const near = nearestNames(pattern, [...NAMESPACES, ...EXACT], { separator: '.' });
  return NAMESPACES.includes(namespace) ? [namespace, ...near.filter((name) => name !== namespace)].slice(0, 3) : near;
}

/**
 * The message for the first pattern of `patterns` that matches no event type (with the nearest names), or undefined
 * when each matches some.
 */
export function unknownTypePattern(patterns: readonly string[]): string | undefined {
  const unknown = patterns.find((pattern) => !matchesSome(pattern));
  if (unknown === undefined) return undefined;
  const near = suggestionsFor(unknown);
  const hint = near.length === 0 ? '' : ` (did you mean ${near.map((name) => `"${name}"`).join(' or ')}?)`;
  return (
    `--types: "${unknown}" is not an event type${hint}. Give exact types or prefixes ending in * ` +
    '(agent.*); docs/reference/events.md lists them.'
  );
}
