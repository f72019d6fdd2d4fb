/**
 * The dashboard's cookie session on its own: what a cookie states and for how long, that a forged or edited one is
 * worth nothing, that it dies with its token, its attributes, and the same-origin test the WebSocket upgrade applies.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  createCookieSessions,
  isHttpsRequest,
  isSameOrigin,
  readCookie,
  secretFromProtocols,
  type TokenStanding,
} from '../../src/gateway/cookie-session.js';
import { DAEMON_CALLER, type Caller } from '../../src/runtime/facade/tokens.facade.js';

const DAEMON_TOKEN = 'cookie-session-daemon-token-7d1e';
const NOW = Date.parse('2026-03-01T12:00:00Z');

/** A request with these headers (and a plain-http socket). */
const request = (headers: Record<string, string | undefined>): IncomingMessage =>
  ({ headers, socket: {} }) as unknown as IncomingMessage;

/** The tokens area as the sessions see it: the ids in `revoked` are gone, time is `now`, and the last sign-out. */
function standing(revoked: Set<string>, now: () => number, signedOut: () => number): TokenStanding {
  return {
    standing: (caller) => {
      if (caller.tokenId !== null && revoked.has(caller.tokenId)) return 'revoked';
      return caller.expiresAt !== null && now() >= caller.expiresAt ? 'expired' : 'live';
    },
    sessionsRevokedAt: signedOut,
  };
}

function rig(token = DAEMON_TOKEN) {
  const revoked = new Set<string>();
  let now = NOW;
  let signedOut = 0;
  const sessions = createCookieSessions({
    token,
    tokens: standing(
      revoked,
      () => now,
      () => signedOut,
    ),
    now: () => now,
  });
  /** The Set-Cookie for `caller`, the session's secret, and a request that sends its cookie back. */
  const exchange = (caller: Caller, headers: Record<string, string> = {}) => {
    const { setCookie, secret } = sessions.issue(caller, request(headers));
    const pair = setCookie.split(';')[0]!;
    return { setCookie, secret, pair, back: request({ cookie: pair }) };
  };
  return {
    sessions,
    revoked,
    exchange,
    advance: (ms: number) => (now += ms),
    signOutEverywhere: () => (signedOut = now),
  };
}

const reader: Caller = { name: 'viewer', scope: 'read', tokenId: 'tok-read-1', expiresAt: null };

describe('cookie sessions', () => {
  it('gives back the caller a cookie was issued for, its scope included, and never holds the token', () => {
    const { sessions, exchange } = rig();
    const daemon = exchange(DAEMON_CALLER);
    expect(sessions.callerOf(daemon.back)).toEqual(DAEMON_CALLER);
    expect(daemon.setCookie).not.toContain(DAEMON_TOKEN);
    const read = exchange(reader);
    expect(sessions.callerOf(read.back)).toEqual(reader);
    expect(sessions.callerOf(read.back)?.scope).toBe('read');
  });

  it('refuses a cookie that is absent, malformed, re-signed, edited or another daemon’s', () => {
    const { sessions, exchange } = rig();
    const { pair } = exchange(reader);
    const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
    const [payload, signature] = value.split('.') as [string, string];
    const asOperate = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), scope: 'operate' }),
    ).toString('base64url');
    const refused = [
      undefined,
      `${name}=`,
      `${name}=garbage`,
      `${name}=${payload}`,
      `${name}=${payload}.`,
      `${name}=${payload}.${signature.slice(0, -2)}`,
      `${name}=${payload}.${'A'.repeat(signature.length)}`,
      // The scope raised by hand: the signature no longer matches.
      `${name}=${asOperate}.${signature}`,
      `other_${name}=${value}`,
    ];
    for (const cookie of refused) expect(sessions.callerOf(request({ cookie })), cookie).toBeNull();
    // Another daemon (another token) neither names its cookie alike nor accepts this one under its own name.
    const other = rig('another-daemon-token-0000');
    expect(other.sessions.cookieName).not.toBe(sessions.cookieName);
    expect(other.sessions.callerOf(request({ cookie: `${other.sessions.cookieName}=${value}` }))).toBeNull();
  });

  it('dies with its token: refused once the token is revoked', () => {
    const { sessions, revoked, exchange } = rig();
    const { back } = exchange(reader);
    expect(sessions.callerOf(back)).not.toBeNull();
    revoked.add(reader.tokenId!);
    expect(sessions.callerOf(back)).toBeNull();
  });

  it('expires with its token: Max-Age until the token’s expiry, refused after it', () => {
    const { sessions, exchange, advance } = rig();
    const brief: Caller = { name: 'brief', scope: 'talk', tokenId: 'tok-brief', expiresAt: NOW + 90_500 };
    const { setCookie, back } = exchange(brief);
    expect(setCookie).toContain('; Max-Age=91');
    expect(sessions.callerOf(back)).toEqual(brief);
    advance(90_499);
    expect(sessions.callerOf(back)).not.toBeNull();
    advance(1);
    expect(sessions.callerOf(back)).toBeNull();
  });

  it('is HttpOnly, SameSite=Strict, Path=/, and lasts the session’s twelve hours for a token that never expires', () => {
    const { exchange } = rig();
    const { setCookie } = exchange(DAEMON_CALLER);
    expect(setCookie.split('; ').slice(1)).toEqual(['Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=43200']);
  });

  it('opens /rpc only with its own secret: not without one, not with another session’s, not with a guess', () => {
    const { sessions, exchange } = rig();
    const mine = exchange(reader);
    const theirs = exchange(reader);
    expect(mine.secret).not.toBe(theirs.secret);
    expect(mine.setCookie).not.toContain(mine.secret);
    expect(sessions.callerWithSecret(mine.back, mine.secret)).toEqual(reader);
    for (const secret of [undefined, '', theirs.secret, 'A'.repeat(mine.secret.length), mine.secret.slice(1)])
      expect(sessions.callerWithSecret(mine.back, secret), String(secret)).toBeNull();
    // The cookie alone still names the caller (the page's files), which is all it opens.
    expect(sessions.callerOf(mine.back)).toEqual(reader);
  });

  it('expires VIGIL_SESSION_HOURS after it opened, checked by the gateway whatever the browser keeps', () => {
    const { sessions, exchange, advance } = rig();
    const { back, secret } = exchange(DAEMON_CALLER);
    advance(12 * 3_600_000 - 1);
    expect(sessions.callerWithSecret(back, secret)).toEqual(DAEMON_CALLER);
    advance(1);
    expect(sessions.callerWithSecret(back, secret)).toBeNull();
    expect(sessions.callerOf(back)).toBeNull();
    const short = createCookieSessions({
      token: DAEMON_TOKEN,
      tokens: standing(
        new Set(),
        () => NOW,
        () => 0,
      ),
      now: () => NOW,
      sessionHours: 0.5,
    });
    expect(short.issue(DAEMON_CALLER, request({})).setCookie).toContain('Max-Age=1800');
  });

  it('ends with a sign-out of every browser: sessions opened until then are void, later ones are not', () => {
    const { sessions, exchange, signOutEverywhere, advance } = rig();
    const before = exchange(DAEMON_CALLER);
    const scoped = exchange(reader);
    signOutEverywhere();
    expect(sessions.callerWithSecret(before.back, before.secret)).toBeNull();
    expect(sessions.callerWithSecret(scoped.back, scoped.secret)).toBeNull();
    // Opened in the very millisecond of the sign-out, but after it: good.
    const after = exchange(DAEMON_CALLER);
    expect(sessions.callerWithSecret(after.back, after.secret)).toEqual(DAEMON_CALLER);
    advance(1);
    expect(sessions.callerWithSecret(after.back, after.secret)).toEqual(DAEMON_CALLER);
  });

  it('is Secure when the browser talks https: through a TLS proxy that says so, or a TLS socket', () => {
    const { exchange } = rig();
    expect(exchange(DAEMON_CALLER, { 'x-forwarded-proto': 'https' }).setCookie).toMatch(/; Secure$/);
    expect(exchange(DAEMON_CALLER, { 'x-forwarded-proto': 'http' }).setCookie).not.toContain('Secure');
    expect(isHttpsRequest(request({ 'x-forwarded-proto': 'HTTPS, http' }))).toBe(true);
    expect(isHttpsRequest({ headers: {}, socket: { encrypted: true } } as unknown as IncomingMessage)).toBe(true);
    expect(isHttpsRequest(request({}))).toBe(false);
  });
});

describe('isSameOrigin', () => {
  it('holds only for an Origin that is present and is http:// or https:// plus the Host', () => {
    const cases: Array<[Record<string, string>, boolean]> = [
      [{ host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080' }, true],
      [{ host: 'vigil.example', origin: 'https://vigil.example' }, true],
      [{ host: 'LOCALHOST:8080', origin: 'http://localhost:8080' }, true],
      [{ host: '127.0.0.1:8080' }, false],
      [{ origin: 'http://127.0.0.1:8080' }, false],
      [{ host: '127.0.0.1:8080', origin: 'null' }, false],
      [{ host: '127.0.0.1:8080', origin: 'http://evil.example' }, false],
      [{ host: '127.0.0.1:8080', origin: 'http://127.0.0.1:9090' }, false],
      [{ host: '127.0.0.1:8080', origin: 'http://127.0.0.1' }, false],
      [{ host: 'localhost:8080', origin: 'http://127.0.0.1:8080' }, false],
      [{ host: '127.0.0.1:8080', origin: 'ws://127.0.0.1:8080' }, false],
    ];
    for (const [headers, same] of cases) expect(isSameOrigin(request(headers)), JSON.stringify(headers)).toBe(same);
  });
});

describe('secretFromProtocols', () => {
  it('finds the secret among the offered subprotocols, and nothing where there is none', () => {
    expect(secretFromProtocols('vigil-session, vigil-session-secret.abc_-1')).toBe('abc_-1');
    expect(secretFromProtocols(['vigil-session', 'vigil-session-secret.x'])).toBe('x');
    expect(secretFromProtocols('vigil-session')).toBeUndefined();
    expect(secretFromProtocols(undefined)).toBeUndefined();
  });
});

describe('readCookie', () => {
  it('finds one cookie among several, by its exact name', () => {
    expect(readCookie('a=1; vigil_session_x=v.s; b=2', 'vigil_session_x')).toBe('v.s');
    expect(readCookie('xvigil_session_x=1', 'vigil_session_x')).toBeUndefined();
    expect(readCookie(undefined, 'a')).toBeUndefined();
  });
});
