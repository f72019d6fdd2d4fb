/**
 * Failed authentications slowed per remote address: each address has a token bucket that a wrong token drains, and
 * an address whose bucket is empty is answered 429 before its token is looked at, whatever token it sends.
 */
import { isIPv6 } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { Caller } from '../runtime/facade/tokens.facade.js';
import { isCrossSiteQueryToken, tokenFromRequest } from './gateway-auth.js';
import { TokenBucket, type RateLimit } from './token-bucket.js';

/**
 * Wrong tokens one address may send: 20 at once, then one a second. A person mistyping a token, or a client retrying
 * a stale one a few times, never meets it; a guesser goes from thousands of guesses a second to one.
 */
export const DEFAULT_FAILED_AUTH_LIMIT: RateLimit = { perSecond: 1, burst: 20 };

/**
 * Addresses whose failures are remembered at once (about 200 bytes each); past it the least recently seen is
 * forgotten, so a scan from many addresses holds no more memory than this.
 */
export const DEFAULT_FAILED_AUTH_ADDRESSES = 4096;

/** What authenticating one request came to. */
export type AuthOutcome =
  | { kind: 'admitted'; caller: Caller }
  /**
   * No token, or a wrong one: 401. `crossSite`: the token was in the query string of a cross-site browser request, so
   * it was not checked (and not counted against the address).
   */
  | { kind: 'refused'; crossSite?: true }
  /** The address (`address`, as throttled) sent too many wrong tokens: 429 with `Retry-After`, the token not looked at. */
  | { kind: 'throttled'; retryAfterMs: number; address: string };

/** How to build the throttled check. */
export interface ThrottledAuthOptions {
  /** Who a presented token stands for (`createCallerAuth`). */
  authenticate: (given: string | undefined) => Caller | null;
  /** Called for every refusal, throttled ones included (`createAuthFailureLog`). */
  logRefusal: (req: IncomingMessage, url: URL) => void;
  /** The clock the buckets refill by (the runtime's, simulated in tests). */
  now: () => number;
  limit?: RateLimit;
  maxAddresses?: number;
  /** Called for every request answered 429 (the metric). */
  onThrottled?: () => void;
}

/**
 * The gateway's authentication of a request, with failed attempts slowed per address. A throttled address gets 429
 * even with the right token: were the token still checked, admitting a right one and refusing a wrong one would tell
 * a guesser which guess was right at full speed, and the throttle would slow nothing. The cost falls on a client that
 * shares the guesser's address (behind one proxy, or another local user on loopback): refused while the guessing goes
 * on, and for at most a second after it stops (one wrong token's worth refills a second, and one is enough to be
 * checked again). Connections already open are not touched, and a request without a token is no guess: it is
 * answered 401 and drains nothing; nor is a token in the query string of a cross-site browser request, which is not
 * checked at all (`isCrossSiteQueryToken`), so a web page cannot trip the throttle for the others at its visitor's
 * address.
 */
export function createThrottledAuth(options: ThrottledAuthOptions): (req: IncomingMessage, url: URL) => AuthOutcome {
  const limit = options.limit ?? DEFAULT_FAILED_AUTH_LIMIT;
  const maxAddresses = options.maxAddresses ?? DEFAULT_FAILED_AUTH_ADDRESSES;
  // In least-recently-seen order: an address seen again moves to the end.
  const buckets = new Map<string, TokenBucket>();
  const bucketOf = (address: string, create: boolean): TokenBucket | undefined => {
    let bucket = buckets.get(address);
    if (bucket !== undefined) buckets.delete(address);
    else if (!create) return undefined;
    else {
      if (buckets.size >= maxAddresses) buckets.delete(buckets.keys().next().value!);
      bucket = new TokenBucket(limit, options.now);
    }
    buckets.set(address, bucket);
    return bucket;
  };
  return (req, url) => {
    const given = tokenFromRequest(req, url);
    if (given === undefined) {
      options.logRefusal(req, url);
      return { kind: 'refused' };
    }
    // Before the throttle: a web page's requests neither drain the address's bucket nor learn that it is empty.
    if (isCrossSiteQueryToken(req, url)) {
      options.logRefusal(req, url);
      return { kind: 'refused', crossSite: true };
    }
    const address = addressKey(req.socket?.remoteAddress);
    const retryAfterMs = bucketOf(address, false)?.retryAfterMs() ?? 0;
    if (retryAfterMs > 0) {
      options.logRefusal(req, url);
      options.onThrottled?.();
      return { kind: 'throttled', retryAfterMs, address };
    }
    const caller = options.authenticate(given);
    if (caller !== null) return { kind: 'admitted', caller };
    bucketOf(address, true)!.take();
    options.logRefusal(req, url);
    return { kind: 'refused' };
  };
}

/**
 * The key an address is throttled under: an IPv4 address whole (an IPv4-mapped IPv6 one as IPv4), an IPv6 address by
 * its /64, the block one host or one customer is given, so a guesser cannot step through its own 2^64 addresses.
 */
export function addressKey(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
  if (mapped !== null) return mapped[1]!;
  if (!isIPv6(remoteAddress)) return remoteAddress;
  const [head = '', tail = ''] = remoteAddress.split('%')[0]!.toLowerCase().split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === '' ? [] : tail.split(':');
  const groups = remoteAddress.includes('::')
    ? [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
    : headGroups;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
