import { describe, expect, it } from 'vitest';
import { backedOffIntervalMs, CIRCUIT_MAX_BACKOFF_MS, circuitOpen } from '../../src/heartbeat/circuit-breaker.js';

describe('circuit breaker', () => {
  it('stays closed for fewer than 10 consecutive failures', () => {
    expect(circuitOpen(9)).toBe(false);
    expect(backedOffIntervalMs(1000, 9)).toBe(1000);
  });

  it('opens at 10 failures and doubles the interval with each further failure', () => {
    expect(circuitOpen(10)).toBe(true);
    expect(backedOffIntervalMs(1000, 10)).toBe(2000);
    expect(backedOffIntervalMs(1000, 11)).toBe(4000);
    expect(backedOffIntervalMs(1000, 12)).toBe(8000);
  });

  it('caps the back-off at 15 minutes, even after thousands of failures', () => {
    expect(backedOffIntervalMs(1000, 30)).toBe(CIRCUIT_MAX_BACKOFF_MS);
    expect(backedOffIntervalMs(1000, 100_000)).toBe(CIRCUIT_MAX_BACKOFF_MS);
  });
});
