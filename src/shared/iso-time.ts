/**
 * `new Date(ms).toISOString()`, about six times faster: every event's envelope carries its time this way, and V8's
 * own formatting costs about 0.6 µs a call (on Node 24), a fiftieth of an idle beat. The day's `YYYY-MM-DDT` is made
 * once per day by V8 and kept; the time of day is arithmetic. Outside whole milliseconds from 1970 to 9999 it is
 * V8's formatting as it was (an invalid time throws the same `RangeError`).
 */

const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00.000Z: from here on the year has more than four digits. */
const YEAR_10000_MS = 253_402_300_800_000;

let dayStart = Number.NaN;
let dayPrefix = '';

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/** The ISO 8601 form of epoch milliseconds `ms` (`2026-11-29T06:10:00.000Z`), as `Date#toISOString` gives it. */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= YEAR_10000_MS) return new Date(ms).toISOString();
  if (!(ms >= dayStart && ms < dayStart + DAY_MS)) {
    dayStart = ms - (ms % DAY_MS);
    dayPrefix = new Date(dayStart).toISOString().slice(0, 11);
  }
  let rest = ms - dayStart;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${dayPrefix}${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${pad3(rest - seconds * 1000)}Z`;
}
