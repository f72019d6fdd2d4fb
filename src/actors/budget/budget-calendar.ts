/** Days in the budget's time zone: the day's key and the next local midnight, correct across DST changes. Pure. */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The local date at `epochMs` in `timeZone`, as `YYYY-MM-DD` (sortable). */
export function dayKeyIn(timeZone: string, epochMs: number): string {
  const parts = formatterFor(timeZone).formatToParts(new Date(epochMs));
  const get = (type: string): string => parts.find((part) => part.type === type)?.value ?? '00';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

const TWO_DAYS_MS = 48 * 3_600_000;

/**
 * The first instant after `epochMs` that falls on a later local date: the next midnight, or the first minute of
 * the day where a DST change skips midnight. Found by bisection on the day key, so no offset arithmetic can go wrong.
 */
export function nextMidnightIn(timeZone: string, epochMs: number): number {
  const today = dayKeyIn(timeZone, epochMs);
  let before = epochMs;
  let after = epochMs + TWO_DAYS_MS;
  // Invariant: dayKey(before) is today, dayKey(after) is a later day. ~28 steps reach one millisecond.
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (dayKeyIn(timeZone, middle) === today) before = middle;
    else after = middle;
  }
  return after;
}

// Offsets lie within −12 h … +14 h, so local date `dayKey` begins after UTC midnight − 14 h and ends before + 38 h.
const EARLIEST_OFFSET_MS = 14 * 3_600_000;
const SEARCH_SPAN_MS = 52 * 3_600_000;
let lastDayEnd: { timeZone: string; dayKey: string; end: number } | undefined;

/** The first instant after local date `dayKey` in `timeZone` (memoised: asked on every beat, it changes once a day). */
export function dayEndIn(timeZone: string, dayKey: string): number {
  if (lastDayEnd !== undefined && lastDayEnd.timeZone === timeZone && lastDayEnd.dayKey === dayKey)
    return lastDayEnd.end;
  let before = Date.parse(`${dayKey}T00:00:00Z`) - EARLIEST_OFFSET_MS;
  let after = before + SEARCH_SPAN_MS;
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (dayKeyIn(timeZone, middle) > dayKey) after = middle;
    else before = middle;
  }
  lastDayEnd = { timeZone, dayKey, end: after };
  return after;
}
