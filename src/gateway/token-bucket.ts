/** A token bucket: a sustained rate with a burst, refilled lazily from a clock, so it costs nothing while idle. */

/** The rate limit of one gateway connection (`VIGIL_RPC_RATE_LIMIT`, `VIGIL_RPC_RATE_BURST`). */
export interface RateLimit {
  /** Tokens added per second; 0 switches the limit off. */
  perSecond: number;
  /** The bucket's size: how many requests may arrive at once. */
  burst: number;
}

/** The defaults: generous for a dashboard, a CLI or a script, far below what a flooding client can send. */
export const DEFAULT_RATE_LIMIT: RateLimit = { perSecond: 200, burst: 1000 };

/** One bucket; starts full. `now` is the runtime's clock, so tests drive it in simulated time. */
export class TokenBucket {
  private tokens: number;
  private refilledAt: number;

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number,
  ) {
    this.tokens = limit.burst;
    this.refilledAt = now();
  }

  /** Takes one token; false when none is left (or true always when the limit is off). */
  take(): boolean {
    if (this.limit.perSecond <= 0) return true;
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Milliseconds until the next token (0 when one is available). */
  retryAfterMs(): number {
    if (this.limit.perSecond <= 0) return 0;
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) * 1000) / this.limit.perSecond);
  }

  private refill(): void {
    const now = this.now();
    // A clock that moved back (a restore, a test) refills nothing rather than draining the bucket.
    const elapsedMs = Math.max(0, now - this.refilledAt);
    this.refilledAt = now;
    this.tokens = Math.min(this.limit.burst, this.tokens + (elapsedMs * this.limit.perSecond) / 1000);
  }
}
