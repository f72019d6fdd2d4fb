/** Capped exponential back-off between attempts to (re)connect an MCP server. */

/** How long to wait before attempt number `failures + 1`, after `failures` failures in a row (1 or more). */
export interface BackoffPolicy {
  /** The wait after the first failure. */
  baseMs: number;
  /** The longest wait. */
  maxMs: number;
}

/** The default: 1 s, 2 s, 4 s … up to 1 minute. */
export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 60_000 };

/** The wait after `failures` consecutive failures: `baseMs · 2^(failures-1)`, capped at `maxMs`. */
export function backoffDelay(failures: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  const exponent = Math.min(Math.max(failures, 1) - 1, 30); // 2^30 already passes any sensible cap
  return Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
}
