/** Gateway authentication: the token from `Authorization: Bearer` or `?token=`, compared in constant time, failures logged. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { VigilLogger } from '../shared/logger.js';
import { DAEMON_CALLER, type Caller, type TokensFacade } from '../runtime/facade/tokens.facade.js';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * A checker for `token`. Both sides are hashed first, so `timingSafeEqual` always compares equal-length digests and
 * the time taken says nothing about the token's length or content.
 */
export function createTokenCheck(token: string): (given: string | undefined) => boolean {
  const expected = digest(token);
  return (given) => {
    const actual = digest(given ?? '');
    return timingSafeEqual(actual, expected) && given !== undefined;
  };
}

/** The token a request carries: the Bearer header wins over the `token` query parameter. */
export function tokenFromRequest(req: IncomingMessage, url: URL): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (match !== null) return match[1]!.trim();
  }
  return url.searchParams.get('token') ?? undefined;
}

/**
 * True when the request's token is in its query string and a browser says it made the request for another site's page
 * (`Sec-Fetch-Site: cross-site`, or `same-site`: another origin of the same site). Such a token is neither checked nor
 * counted against the address (CONTRACT §4): a web page could otherwise send wrong tokens (an `<img src>`) from its
 * visitor's address and have the gateway throttle everyone there. A browser cannot send a Bearer header cross-site
 * without a CORS preflight the gateway never answers, so the header is not concerned.
 */
export function isCrossSiteQueryToken(req: IncomingMessage, url: URL): boolean {
  if (req.headers.authorization !== undefined || !url.searchParams.has('token')) return false;
  return /^(cross|same)-site$/i.test(String(req.headers['sec-fetch-site'] ?? ''));
}

/** How failed attempts are logged: at most one warn line per address per `everyMs`, with the count since the last. */
export interface AuthFailureLogOptions {
  /** Milliseconds between two lines for the same address (default 10 s). */
  everyMs?: number;
  /** Addresses remembered at once; the oldest is forgotten past it, so a scan of many addresses holds no memory (default 1024). */
  maxAddresses?: number;
  /** The time source (default `Date.now`). */
  now?: () => number;
}

/**
 * Why a request was refused, as logged: no token at all, a wrong one, or one in the query string of a cross-site
 * browser request (not checked). Never the token itself.
 */
export type AuthFailure = 'missing' | 'wrong' | 'cross_site';

/**
 * A logger of refused requests, for the gateway to call where it answers 401: at warn, with the remote address, the
 * path and whether the token was missing or wrong — never the token (nor the query string, which may carry it). A
 * guessing client gets one line per address per `everyMs` with its count of attempts, not one line per guess.
 */
export function createAuthFailureLog(
  log: VigilLogger,
  options: AuthFailureLogOptions = {},
): (req: IncomingMessage, url: URL) => void {
  const everyMs = options.everyMs ?? 10_000;
  const maxAddresses = options.maxAddresses ?? 1024;
  const now = options.now ?? Date.now;
  const seen = new Map<string, { loggedAt: number; unlogged: number }>();
  return (req, url) => {
    const remoteAddress = req.socket?.remoteAddress ?? 'unknown';
    const at = now();
    let entry = seen.get(remoteAddress);
    if (entry === undefined) {
      if (seen.size >= maxAddresses) seen.delete(seen.keys().next().value!);
      entry = { loggedAt: Number.NEGATIVE_INFINITY, unlogged: 0 };
      seen.set(remoteAddress, entry);
    }
    entry.unlogged += 1;
    if (at - entry.loggedAt < everyMs) return;
    const reason: AuthFailure = isCrossSiteQueryToken(req, url)
      ? 'cross_site'
      : tokenFromRequest(req, url) === undefined
        ? 'missing'
        : 'wrong';
    log.warn({ remoteAddress, path: url.pathname, reason, attempts: entry.unlogged }, 'gateway authentication failed');
    entry.loggedAt = at;
    entry.unlogged = 0;
  };
}

/** The token check and the refusal log in one: `check(req, url)` is true for the right token, and logs a refusal. */
export function createRequestAuth(
  token: string,
  log: VigilLogger,
  options: AuthFailureLogOptions = {},
): (req: IncomingMessage, url: URL) => boolean {
  const isValid = createTokenCheck(token);
  const logRefusal = createAuthFailureLog(log, options);
  return (req, url) => {
    if (isValid(tokenFromRequest(req, url))) return true;
    logRefusal(req, url);
    return false;
  };
}

/**
 * Who a presented token stands for: the daemon's own token (`operate`), a live scoped token, or null. Each is checked
 * in constant time for its secret; a scoped token's id (not secret) picks the one record to compare against.
 * Called once per connection or request, never per frame.
 */
export function createCallerAuth(token: string, tokens: TokensFacade): (given: string | undefined) => Caller | null {
  const isDaemonToken = createTokenCheck(token);
  return (given) => {
    if (given === undefined) return null;
    if (isDaemonToken(given)) return DAEMON_CALLER;
    return tokens.authenticate(given);
  };
}
