/**
 * The dashboard's cookie session: a browser trades its token once for an HttpOnly cookie, so neither the page's URL
 * nor its WebSocket upgrade ever carries the token (a reverse proxy's access log keeps URLs; the MCP authorization
 * specification forbids tokens in query strings).
 *
 * The cookie is not the token. It is a sealed statement "this browser holds token <id> of scope <scope>, which expires
 * at <t>", signed with a key derived from the daemon's own token, so:
 * - it is worth nothing without this daemon's secret (a forged or edited cookie fails the signature);
 * - its scope is its token's: a `read` token's cookie opens a `read` session;
 * - it lives exactly as long as its token: every use asks `tokens.standing` (no hashing, per request), so
 *   `tokens.revoke` — or the token's expiry — kills the cookie at once, and the connections opened with it close
 *   through `tokens.ended$` like any other (they carry the token's id);
 * - it needs no server-side table: it survives a daemon restart (the dashboard reconnects by itself), costs no memory
 *   per browser, and a new daemon token (`VIGIL_TOKEN` changed, or the token file replaced) voids every cookie at once.
 * The price of stateless: one cookie cannot be revoked alone; its token can (and that is the unit an operator hands out).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { TokenScopeSchema } from '../protocol/token-scopes.js';
import type { Caller } from '../runtime/facade/tokens.facade.js';

/** What a session cookie states, signed: the caller its token stood for when it was exchanged. */
export const CookieSessionSchema = z.object({
  /** The format, so a later one can refuse (not misread) this one. */
  v: z.literal(1),
  name: z.string(),
  scope: TokenScopeSchema,
  /** The scoped token's id; null for the daemon's own token. */
  tokenId: z.string().nullable(),
  /** Epoch ms the token expires at; null: never. */
  expiresAt: z.number().nullable(),
});
export type CookieSession = z.infer<typeof CookieSessionSchema>;

/** What the sessions need of the tokens area: whether a token still stands (not revoked, not expired). */
export interface TokenStanding {
  standing(caller: Caller): 'live' | 'revoked' | 'expired';
}

/** The cookie sessions of one gateway. */
export interface CookieSessions {
  /** The cookie's name: per daemon, since cookies ignore ports and two daemons on one host must keep theirs apart. */
  readonly cookieName: string;
  /** The `Set-Cookie` value that opens a session for `caller`, as answered to `req` (which says whether it is https). */
  issue(caller: Caller, req: IncomingMessage): string;
  /** The caller `req`'s session cookie stands for, or null: none, forged, or its token revoked or expired. */
  callerOf(req: IncomingMessage): Caller | null;
}

/** How to open sessions: the daemon's token (the signing key derives from it), the tokens area and the clock. */
export interface CookieSessionOptions {
  token: string;
  tokens: TokenStanding;
  /** Epoch ms now (the runtime's clock), for the cookie's Max-Age. */
  now: () => number;
}

/** The cookie sessions for a daemon whose own token is `token`. */
export function createCookieSessions({ token, tokens, now }: CookieSessionOptions): CookieSessions {
  // A key of its own, derived: the token itself never signs anything a browser holds.
  const key = createHmac('sha256', token).update('vigil dashboard cookie session v1').digest();
  const cookieName = `vigil_session_${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
  const sign = (payload: string): Buffer => createHmac('sha256', key).update(payload).digest();

  return {
    cookieName,
    issue(caller, req) {
      const session: CookieSession = {
        v: 1,
        name: caller.name,
        scope: caller.scope,
        tokenId: caller.tokenId,
        expiresAt: caller.expiresAt,
      };
      const payload = Buffer.from(JSON.stringify(session)).toString('base64url');
      const value = `${payload}.${sign(payload).toString('base64url')}`;
      return serializeCookie(cookieName, value, {
        maxAgeSeconds: caller.expiresAt === null ? null : Math.max(0, Math.ceil((caller.expiresAt - now()) / 1000)),
        secure: isHttpsRequest(req),
      });
    },
    callerOf(req) {
      const value = readCookie(req.headers.cookie, cookieName);
      if (value === undefined) return null;
      const session = openSession(value, sign);
      if (session === null) return null;
      const caller: Caller = {
        name: session.name,
        scope: session.scope,
        tokenId: session.tokenId,
        expiresAt: session.expiresAt,
      };
      return tokens.standing(caller) === 'live' ? caller : null;
    },
  };
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
 * - `Max-Age` only for a token that expires (the cookie goes with it); otherwise a browser-session cookie;
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
