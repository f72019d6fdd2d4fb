/** Event type filters: exact types or prefixes ending in `*` (`"checkpoint.*"`), as CONTRACT §4 says. */
import type { MonoTypeOperatorFunction } from 'rxjs';
// The one operator, not the package index (all of RxJS, ~220 modules, at start-up).
import { filter } from 'rxjs/internal/operators/filter';

/** A predicate over event types built from filter patterns; no patterns (or none given) matches everything. */
export function typeMatcher(patterns: readonly string[] | undefined): (type: string) => boolean {
  if (patterns === undefined || patterns.length === 0) return () => true;
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const pattern of patterns) {
    if (pattern === '*') return () => true;
    if (pattern.endsWith('*')) prefixes.push(pattern.slice(0, -1));
    else exact.add(pattern);
  }
  return (type) => exact.has(type) || prefixes.some((prefix) => type.startsWith(prefix));
}

/** RxJS operator keeping only events whose type matches one of `patterns`. */
export function ofTypes<E extends { type: string }>(
  patterns: readonly string[] | undefined,
): MonoTypeOperatorFunction<E> {
  const matches = typeMatcher(patterns);
  return filter((event) => matches(event.type));
}
