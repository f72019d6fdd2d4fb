/** The heartbeat's circuit breaker: after 10 failed beats in a row, back off exponentially up to 15 minutes. */

/** Failed beats in a row before the breaker opens. */
export const CIRCUIT_FAILURE_THRESHOLD = 10;
/** The longest back-off. */
export const CIRCUIT_MAX_BACKOFF_MS = 15 * 60_000;

/** True when this many consecutive failures keep the breaker open. */
export function circuitOpen(consecutiveFailures: number): boolean {
  return consecutiveFailures >= CIRCUIT_FAILURE_THRESHOLD;
}

/** The delay before the next beat: the normal interval, doubled for each failure from the threshold on, capped. */
export function backedOffIntervalMs(intervalMs: number, consecutiveFailures: number): number {
  if (!circuitOpen(consecutiveFailures)) return intervalMs;
  const doublings = consecutiveFailures - CIRCUIT_FAILURE_THRESHOLD + 1;
  // 2 ** 40 already exceeds any cap; avoid Infinity arithmetic on long outages.
  return Math.min(CIRCUIT_MAX_BACKOFF_MS, intervalMs * 2 ** Math.min(doublings, 40));
}
