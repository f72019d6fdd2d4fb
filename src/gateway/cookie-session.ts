/**
 * The dashboard's browser session: a browser trades its token once (or a one-time sign-in code) for two things that
 * are worth something only together:
 * - an HttpOnly cookie, a sealed statement "this browser holds token <id> of scope <scope>, session <sid> opened at
 *   <t>", signed with a key derived from the daemon's own token (so a forged or edited cookie fails the signature);
 * - the session's secret, derived from the same key and <sid>, handed to the page once (in the sign-in's answer: the
 *   fragment of the redirect, or the JSON of `POST /dashboard/session`), which the page keeps in its origin's storage
 *   and sends on its WebSocket upgrade (as a subprotocol: a browser cannot set headers there).
 *
 * Why both: browsers do not isolate cookies by port, so any other web server on the same host receives the cookie
 * on its own requests and can replay it with a forged `Origin`. It cannot replay the secret: web storage is per origin
 * (port included) and the secret is never sent anywhere but to the gateway's `/rpc`. A replayed cookie alone opens the
 * page's files (the package's own, no data) and nothing else (Jupyter's XSRF token is the same idea).
 *
 * A session ends, checked on every use:
 * - when its token ends (`tokens.standing`: revoked or expired) — connections opened with it close through
 *   `tokens.ended$` like any other;
 * - `VIGIL_SESSION_HOURS` after it opened (the cookie's Max-Age says so too, but the gateway checks the time it signed);
 * - when an operator signs every browser out (`tokens.revoke {name: "daemon"}`): sessions opened before that moment
 *   are void, on disk, so a restart does not bring them back;
 * - when the daemon's token changes (the key derives from it).
 * Nothing is kept per session on the server: a session survives a daemon restart and costs no memory per browser.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { TokenScopeSchema } from '../protocol/token-scopes.js';
import type { Caller } from '../runtime/facade/tokens.facade.js';

/** What a session cookie states, signed: the caller its token stood for when it was exchanged, and the session. */
export const CookieSessionSchema = z.object({
  /** The format: version 1 (no session id, no secret) is refused, not misread. */
  v: z.literal(2),
  /** The session's id, random: the secret derives from it. */
  sid: z.string().min(16),
  name: z.string(),
  scope: TokenScopeSchema,
  /** The scoped token's id; null for the daemon's own token. */
  tokenId: z.string().nullable(),
  /** Epoch ms the token expires at; null: never. */
  expiresAt: z.number().nullable(),
  /** Epoch ms the session opened (the gateway's clock). */
  issuedAt: z.number(),
});
export type CookieSession = z.infer<typeof CookieSessionSchema>;

/** The default of `VIGIL_SESSION_HOURS`: a working day, then sign in again. */
export const DEFAULT_SESSION_HOURS = 12;

/** The WebSocket subprotocol the page offers (and the gateway selects) on its upgrade. */
export const SESSION_PROTOCOL = 'vigil-session';
/** The prefix of the subprotocol that carries the session's secret (never selected, never echoed). */
export const SESSION_SECRET_PROTOCOL_PREFIX = 'vigil-session-secret.';

/** What the sessions need of the tokens area: whether a token still stands, and the last "sign out everywhere". */
export interface TokenStanding {
  standing(caller: Caller): 'live' | 'revoked' | 'expired';
  /** Epoch ms of the last sign-out of every browser; sessions opened at or before it are void. 0: never. */
  sessionsRevokedAt?(): number;
}

/** A session just opened: the `Set-Cookie` value and the secret the page must keep. */
export interface IssuedSession {
  setCookie: string;
  secret: string;
}

/** The cookie sessions of one gateway. */
export interface CookieSessions {
  /** The cookie's name: per daemon, since cookies ignore ports and two daemons on one host must keep theirs apart. */
  readonly cookieName: string;
  /** Opens a session for `caller`, as answered to `req` (which says whether it is https). */
  issue(caller: Caller, req: IncomingMessage): IssuedSession;
  /** The caller `req`'s session cookie stands for, or null: none, forged, expired, signed out or its token ended. */
  callerOf(req: IncomingMessage): Caller | null;
  /** `callerOf`, and only if `secret` is the session's own: what opens `/rpc`. */
  callerWithSecret(req: IncomingMessage, secret: string | undefined): Caller | null;
}

/** How to open sessions: the daemon's token (the signing key derives from it), the tokens area and the clock. */
export interface CookieSessionOptions {
  token: string;
  tokens: TokenStanding;
  /** Epoch ms now (the runtime's clock). */
  now: () => number;
  /** How long a session lasts (`VIGIL_SESSION_HOURS`, default 12). */
  sessionHours?: number;
}

/** The cookie sessions for a daemon whose own token is `token`. */
export function createCookieSessions({
  token,
  tokens,
  now,
  sessionHours = DEFAULT_SESSION_HOURS,
}: CookieSessionOptions): CookieSessions {
  // A key of its own, derived: the token itself never signs anything a browser holds.
  const key = createHmac('sha256', token).update('vigil dashboard cookie session v2').digest();
  const cookieName = `vigil_session_${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
  const sign = (payload: string): Buffer => createHmac('sha256', key).update(payload).digest();
  const secretOf = (sid: string): Buffer => createHmac('sha256', key).update(`session secret\0${sid}`).digest();
  const lifetimeMs = sessionHours * 3_600_000;
  const revokedAt = (): number => tokens.sessionsRevokedAt?.() ?? 0;

  const sessionOf = (req: IncomingMessage): CookieSession | null => {
    const value = readCookie(req.headers.cookie, cookieName);
    if (value === undefined) return null;
    const session = openSession(value, sign);
    if (session === null) return null;
    const at = now();
    if (at >= session.issuedAt + lifetimeMs || session.issuedAt <= revokedAt()) return null;
    const caller = callerOfSession(session);
    return tokens.standing(caller) === 'live' ? session : null;
  };

  return {
    cookieName,
    issue(caller, req) {
      // Strictly after the last sign-out, even within its millisecond, so a session opened after it is not void.
      const issuedAt = Math.max(now(), revokedAt() + 1);
      const session: CookieSession = {
        v: 2,
        sid: randomBytes(18).toString('base64url'),
        name: caller.name,
        scope: caller.scope,
        tokenId: caller.tokenId,
        expiresAt: caller.expiresAt,
        issuedAt,
      };
      const payload = Buffer.from(JSON.stringify(session)).toString('base64url');
      const value = `${payload}.${sign(payload).toString('base64url')}`;
      const endsAt = Math.min(issuedAt + lifetimeMs, caller.expiresAt ?? Number.POSITIVE_INFINITY);
      return {
        setCookie: serializeCookie(cookieName, value, {
          maxAgeSeconds: Math.max(0, Math.ceil((endsAt - now()) / 1000)),
          secure: isHttpsRequest(req),
        }),
        secret: secretOf(session.sid).toString('base64url'),
      };
    },
    callerOf(req) {
      const session = sessionOf(req);
      return session === null ? null : callerOfSession(session);
    },
    callerWithSecret(req, secret) {
      if (secret === undefined) return null;
      const session = sessionOf(req);
      if (session === null) return null;
      const given = Buffer.from(secret, 'base64url');
      const expected = secretOf(session.sid);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      return callerOfSession(session);
    },
  };
}

/** The caller a session stands for. */
function callerOfSession(session: CookieSession): Caller {
  return { name: session.name, scope: session.scope, tokenId: session.tokenId, expiresAt: session.expiresAt };
}

/**
 * The session's secret among the subprotocols a WebSocket upgrade offers (`Sec-WebSocket-Protocol: vigil-session,
 * vigil-session-secret.<secret>`), if any.
 */
export function secretFromProtocols(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header.join(',') : header;
  for (const offered of value?.split(',') ?? []) {
    const protocol = offered.trim();
    if (protocol.startsWith(SESSION_SECRET_PROTOCOL_PREFIX))
      return protocol.slice(SESSION_SECRET_PROTOCOL_PREFIX.length);
  }
  return undefined;
}

/** The session a cookie value states, if its signature is this daemon's; null for anything else. */
function openSession(value: string, sign: (payload: string) => Buffer): CookieSession | null {
  const dot = value.indexOf('.');
  if (dot <= 0) return null;
  const payload = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1), 'base64url');
  const expected = sign(payload);
  // Equal lengths first (timingSafeEqual throws otherwise); the length of a signature is no secret.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const parsed = CookieSessionSchema.safeParse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The cookie's attributes, and why:
 * - `HttpOnly`: no script reads it, so an injected one cannot carry the session away (the page itself never needs it);
 * - `SameSite=Strict`: a page of another site cannot make the browser send it, not even on a top-level link;
 * - `Path=/`: the page, its files and `/rpc` all get it;
 * - `Max-Age`: until the session ends (`VIGIL_SESSION_HOURS`, or its token's expiry if sooner);
 * - `Secure` only when the browser is talking https (see `isHttpsRequest`): over plain http a browser drops a
 *   Secure cookie, and the dashboard would not open at all.
 */
export function serializeCookie(
  name: string,
  value: string,
  { maxAgeSeconds, secure }: { maxAgeSeconds: number | null; secure: boolean },
): string {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Strict'];
  if (maxAgeSeconds !== null) parts.push(`Max-Age=${maxAgeSeconds}`);
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

/**
 * Whether the browser reached the gateway over https. The gateway itself serves plain http, so https means a TLS
 * proxy in front, which may say so in `X-Forwarded-Proto`. The gateway cannot know whether that header came from a
 * trusted proxy; it need not: the header only adds `Secure`, and a forged one only makes the forger's own browser drop
 * its own cookie. A proxy that does not send the header gets a cookie without `Secure`, which still never leaves that
 * https origin unless the same host also answers plain http (docs/operations/tokens-and-scopes.md).
 */
export function isHttpsRequest(req: IncomingMessage): boolean {
  if ((req.socket as { encrypted?: boolean } | undefined)?.encrypted === true) return true;
  const forwarded = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase();
  return first === 'https';
}

/**
 * Whether `req` comes from a page of the gateway's own origin: an `Origin` header that is present and equals `http://`
 * + `Host` (or `https://` + `Host`, the same host behind a TLS proxy that passes `Host` on), or that
 * `isGatewayOrigin` accepts (an origin the operator declared the gateway's, `VIGIL_ALLOWED_ORIGINS` or
 * `VIGIL_PUBLIC_URL`'s: a reverse proxy that sends a `Host` of its own). A cookie rides along with whatever a browser
 * sends to this host; this is what stops a page of another origin from riding it (SameSite=Strict already keeps other
 * sites out; this keeps out other origins of the same site, another port of localhost among them, and does not depend
 * on the browser honouring SameSite).
 */
export function isSameOrigin(
  req: IncomingMessage,
  isGatewayOrigin: (origin: string) => boolean = () => false,
): boolean {
  const origin = req.headers.origin?.toLowerCase();
  if (origin === undefined) return false;
  const host = req.headers.host?.toLowerCase();
  if (host !== undefined && host !== '' && (origin === `http://${host}` || origin === `https://${host}`)) return true;
  return isGatewayOrigin(origin);
}

/** The value of cookie `name` in a Cookie header, if present. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
