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
  type TokenStanding,
} from '../../src/gateway/cookie-session.js';
import { DAEMON_CALLER, type Caller } from '../../src/runtime/facade/tokens.facade.js';

const DAEMON_TOKEN = 'cookie-session-daemon-token-7d1e';
const NOW = Date.parse('2026-03-01T12:00:00Z');

/** A request with these headers (and a plain-http socket). */
const request = (headers: Record<string, string | undefined>): IncomingMessage =>
  ({ headers, socket: {} }) as unknown as IncomingMessage;

/** The tokens area as the sessions see it: the ids in `revoked` are gone, and time is `now`. */
function standing(revoked: Set<string>, now: () => number): TokenStanding {
  return {
    standing: (caller) => {
      if (caller.tokenId !== null && revoked.has(caller.tokenId)) return 'revoked';
      return caller.expiresAt !== null && now() >= caller.expiresAt ? 'expired' : 'live';
    },
  };
}

function rig(token = DAEMON_TOKEN) {
  const revoked = new Set<string>();
  let now = NOW;
  const sessions = createCookieSessions({ token, tokens: standing(revoked, () => now), now: () => now });
  /** The Set-Cookie for `caller`, and a request that sends its cookie back. */
  const exchange = (caller: Caller, headers: Record<string, string> = {}) => {
    const setCookie = sessions.issue(caller, request(headers));
    const pair = setCookie.split(';')[0]!;
    return { setCookie, pair, back: request({ cookie: pair }) };
  };
  return { sessions, revoked, exchange, advance: (ms: number) => (now += ms) };
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

  it('is HttpOnly, SameSite=Strict, Path=/; a browser-session cookie for a token that never expires', () => {
    const { exchange } = rig();
    const { setCookie } = exchange(DAEMON_CALLER);
    expect(setCookie.split('; ').slice(1)).toEqual(['Path=/', 'HttpOnly', 'SameSite=Strict']);
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

describe('readCookie', () => {
  it('finds one cookie among several, by its exact name', () => {
    expect(readCookie('a=1; vigil_session_x=v.s; b=2', 'vigil_session_x')).toBe('v.s');
    expect(readCookie('xvigil_session_x=1', 'vigil_session_x')).toBeUndefined();
    expect(readCookie(undefined, 'a')).toBeUndefined();
  });
});
