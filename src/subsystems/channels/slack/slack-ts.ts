/**
 * Slack's message timestamps (`"1712345678.000100"`: seconds and microseconds, unique per workspace, in Slack's clock)
 * compared and moved exactly: 16 digits are more than a double keeps, so they are counted as bigint microseconds.
 */

/** `ts` in microseconds; undefined for anything that is not a Slack ts. */
export function tsMicros(ts: string): bigint | undefined {
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(ts);
  if (match === null) return undefined;
  return BigInt(match[1]!) * 1_000_000n + BigInt((match[2] ?? '').padEnd(6, '0'));
}

/** Microseconds written as a Slack ts. */
export function tsOf(micros: bigint): string {
  const safe = micros < 0n ? 0n : micros;
  return `${safe / 1_000_000n}.${String(safe % 1_000_000n).padStart(6, '0')}`;
}

/** The later of two timestamps (either may be missing or not a ts). */
export function laterTs(a: string | undefined, b: string | undefined): string | undefined {
  const am = a === undefined ? undefined : tsMicros(a);
  const bm = b === undefined ? undefined : tsMicros(b);
  if (am === undefined) return bm === undefined ? undefined : b;
  if (bm === undefined) return a;
  return bm > am ? b : a;
}

/** `ts` moved back by `ms` milliseconds. */
export function tsMinusMs(ts: string, ms: number): string {
  return tsOf((tsMicros(ts) ?? 0n) - BigInt(ms) * 1000n);
}
