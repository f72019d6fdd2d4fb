/**
 * The dashboard's static files at `GET /` and `/dashboard/…`: a fixed list (no path from a request ever reaches the
 * file system), with content types, ETags and security headers; and the exchange of a token for the browser's cookie
 * session (cookie-session.ts), so that neither the page's URL nor its WebSocket carries the token.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VigilError } from '../errors.js';
import type { Caller } from '../runtime/facade/tokens.facade.js';
import {
  createCookieSessions,
  isSameOrigin,
  secretFromProtocols,
  type IssuedSession,
  type TokenStanding,
} from './cookie-session.js';

// Served from the build, wherever this module runs: compiled in dist/gateway/, or as source in src/gateway/ (under
// vitest); both stand two levels below the package root. Only the build has the bundled client beside the copies.
const DASHBOARD_DIR = fileURLToPath(new URL('../../dist/gateway/dashboard/', import.meta.url));
const built = (name: string): string => `${DASHBOARD_DIR}${name}`;
const fromPackage = (specifier: string): string => createRequire(import.meta.url).resolve(specifier);

/** Every file the dashboard serves, by URL path. Nothing outside this table is ever read. */
export const DASHBOARD_FILES: Readonly<Record<string, string>> = {
  '/': built('index.html'),
  '/dashboard/dashboard.css': built('dashboard.css'),
  '/dashboard/favicon.svg': built('favicon.svg'),
  '/dashboard/dashboard-app.js': built('dashboard-app.js'),
  '/dashboard/session-token.js': built('session-token.js'),
  // The typed client (src/client/browser.ts), bundled by esbuild at build time (scripts/browser-bundle.mjs).
  '/dashboard/vigil-client.js': built('vigil-client.js'),
  '/dashboard/vigil-client.js.map': built('vigil-client.js.map'),
  '/dashboard/dom-helpers.js': built('dom-helpers.js'),
  '/dashboard/beat-rate.js': built('beat-rate.js'),
  '/dashboard/heartbeat.panel.js': built('heartbeat.panel.js'),
  '/dashboard/budget.panel.js': built('budget.panel.js'),
  '/dashboard/affect.panel.js': built('affect.panel.js'),
  '/dashboard/memory.panel.js': built('memory.panel.js'),
  '/dashboard/long-term-memory.panel.js': built('long-term-memory.panel.js'),
  '/dashboard/goals.panel.js': built('goals.panel.js'),
  '/dashboard/conversation.panel.js': built('conversation.panel.js'),
  '/dashboard/events.panel.js': built('events.panel.js'),
  '/dashboard/checkpoints.panel.js': built('checkpoints.panel.js'),
  '/dashboard/tools.panel.js': built('tools.panel.js'),
  '/dashboard/thinks.panel.js': built('thinks.panel.js'),
  '/dashboard/tasks.panel.js': built('tasks.panel.js'),
  '/dashboard/schedules.panel.js': built('schedules.panel.js'),
  '/dashboard/webhooks.panel.js': built('webhooks.panel.js'),
  '/dashboard/channels.panel.js': built('channels.panel.js'),
  '/dashboard/channel-traffic.js': built('channel-traffic.js'),
  // uPlot's own browser build, straight from node_modules: no bundling, no build step.
  '/dashboard/vendor/uplot.esm.js': fromPackage('uplot/dist/uPlot.esm.js'),
  '/dashboard/vendor/uplot.min.css': fromPackage('uplot/dist/uPlot.min.css'),
};

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
};

/**
 * The page runs only its own files and its one inline import map (allowed by its hash): no other inline script, no
 * third-party origin; it talks to this gateway alone.
 */
function contentSecurityPolicy(page: string): string {
  const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(page)?.[1];
  const importMapHash =
    importMap === undefined ? '' : ` 'sha256-${createHash('sha256').update(importMap).digest('base64')}'`;
  return [
    "default-src 'none'",
    `script-src 'self'${importMapHash}`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  // The first load's URL carries ?token=: no Referer may repeat it, not even the redirect's.
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
} as const;

interface LoadedFile {
  body: Buffer;
  type: string;
  etag: string;
  /** The page's Content-Security-Policy (HTML only). */
  csp?: string;
}

/** Where the page trades a token (`Authorization: Bearer`) for its session: `POST`, answered `{secret}` and the cookie. */
export const DASHBOARD_SESSION_PATH = '/dashboard/session';

/** The fragment key of the page's URL that hands it its session's secret after a sign-in (`/#session=SECRET`). */
export const SESSION_FRAGMENT_KEY = 'session';

/** The query parameter of a one-time sign-in link (`/?signin=CODE`, from `auth.signIn` / `vigil dashboard`). */
export const SIGN_IN_PARAM = 'signin';

/** The dashboard's routes plus the session checks the HTTP server consults before refusing a request. */
export interface DashboardRoutes {
  /** Handlers by path (`/` and every `/dashboard/…` file); `caller` is null for a file opened by the cookie. */
  routes: Record<string, (req: IncomingMessage, res: ServerResponse, url: URL, caller: Caller | null) => void>;
  /** True when `req` is for one of the dashboard's files, carries a live session cookie and no `?token=` (which wins). */
  hasSession(req: IncomingMessage, url: URL): boolean;
  /**
   * The caller of a `/rpc` upgrade opened by the page: its session cookie and its session's secret (offered as a
   * subprotocol), from the gateway's own origin; null otherwise.
   */
  upgradeCaller(req: IncomingMessage): Caller | null;
  /** Answers `POST /dashboard/session`: the cookie and `{secret}` for `caller` (the Bearer token's), or 401 / 403. */
  exchange(req: IncomingMessage, res: ServerResponse, caller: Caller | null): void;
  /** Answers `GET /?signin=CODE`: a session for the code's caller and a 303 to the page, or the refusal page. */
  signIn(req: IncomingMessage, res: ServerResponse, url: URL): void;
  /** Answers an unauthenticated browser asking for the page with a short HTML explanation; false if it is not one. */
  refusePage(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
}

/** What the dashboard needs: the daemon's token (the cookie's key derives from it), the tokens area, the clock. */
export interface DashboardOptions {
  token: string;
  tokens: TokenStanding;
  /** Epoch ms now (default `Date.now`; the gateway passes the runtime's clock). */
  now?: () => number;
  /**
   * Whether an `Origin` is one the operator declared the gateway's (`VIGIL_ALLOWED_ORIGINS`, `VIGIL_PUBLIC_URL`'s): the
   * page behind a reverse proxy that passes on a `Host` of its own. Default: none beyond the request's own host.
   */
  isGatewayOrigin?: (origin: string) => boolean;
  /** How long a browser session lasts (`VIGIL_SESSION_HOURS`, default 12). */
  sessionHours?: number;
  /** The caller a one-time sign-in code stands for, taking it (default: none is ever good). */
  takeSignInCode?: (code: string) => Caller | null;
}

/**
 * The dashboard of a gateway. A page opened with `/?token=T` (any valid token, a scoped one too) is answered with its
 * session cookie and a 303 to `/` without the token. Why a redirect rather than serving the page and letting its
 * script remove the token with `history.replaceState` (the page did that before): the URL with the token is never the
 * document's URL, so it never enters the tab's session history (back/forward), no script on the page (nor an
 * extension reading `location`) ever sees it, a reload cannot send it again, and it works before any script runs.
 * The cookie opens the page's files and its WebSocket to `/rpc` (same origin only); `/events`, `/metrics` and `/mcp`
 * still need the token itself (the page uses neither; a program sends `Authorization: Bearer`).
 */
export function createDashboardRoutes({
  token,
  tokens,
  now = Date.now,
  isGatewayOrigin,
  sessionHours,
  takeSignInCode = () => null,
}: DashboardOptions): DashboardRoutes {
  // The files are read at their first request (start-up stays fast); a missing build is said at once, not as a 404 later.
  assertDashboardBuilt(DASHBOARD_FILES['/dashboard/vigil-client.js']!);
  const sessions = createCookieSessions({
    token,
    tokens,
    now,
    ...(sessionHours === undefined ? {} : { sessionHours }),
  });
  const cache = new Map<string, LoadedFile>();
  const fromThePage = (req: IncomingMessage): boolean => isSameOrigin(req, isGatewayOrigin);

  const load = (path: string): LoadedFile => {
    let file = cache.get(path);
    if (file === undefined) {
      const body = readFileSync(DASHBOARD_FILES[path]!);
      const type = CONTENT_TYPES[extname(DASHBOARD_FILES[path]!)] ?? 'application/octet-stream';
      file = { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
      if (type.startsWith('text/html')) file.csp = contentSecurityPolicy(body.toString('utf8'));
      cache.set(path, file);
    }
    return file;
  };

  const serve: DashboardRoutes['routes'][string] = (req, res, url, caller) => {
    if (url.pathname === '/' && caller !== null && url.searchParams.has('token')) {
      // The token was in the address: trade it for a session and send the browser on to the same page without it.
      url.searchParams.delete('token');
      redirectIntoSession(res, url, sessions.issue(caller, req));
      return;
    }
    const file = load(url.pathname);
    const headers: Record<string, string | number> = { ...SECURITY_HEADERS, 'content-type': file.type };
    if (url.pathname === '/') {
      headers['cache-control'] = 'no-store';
      headers['content-security-policy'] = file.csp ?? "default-src 'none'";
    } else {
      // Revalidated on every load (cheap 304s), so a daemon upgrade never runs a stale mix of modules.
      headers['cache-control'] = 'private, no-cache';
      headers['etag'] = file.etag;
      if (req.headers['if-none-match'] === file.etag) {
        res.writeHead(304, headers).end();
        return;
      }
    }
    headers['content-length'] = file.body.length;
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : file.body);
  };

  const routes: DashboardRoutes['routes'] = {};
  for (const path of Object.keys(DASHBOARD_FILES)) routes[path] = serve;

  return {
    routes,
    hasSession(req, url) {
      if (!Object.hasOwn(DASHBOARD_FILES, url.pathname) || url.searchParams.has('token')) return false;
      // The files hold no data (they are the package's own), and a browser sends no Origin on a navigation or on the
      // page's own GETs; still, a request that says it comes from elsewhere does not get them by the cookie.
      if (req.headers.origin !== undefined && !fromThePage(req)) return false;
      if (/^(cross|same)-site$/.test(String(req.headers['sec-fetch-site']))) return false;
      return sessions.callerOf(req) !== null;
    },
    upgradeCaller(req) {
      // A browser always sends Origin on a WebSocket upgrade: one that is absent or foreign is not the page. Nor is a
      // request without the session's secret, which only the page holds: a cookie replayed from elsewhere opens nothing.
      if (!fromThePage(req)) return null;
      return sessions.callerWithSecret(req, secretFromProtocols(req.headers['sec-websocket-protocol']));
    },
    exchange(req, res, caller) {
      // fetch() sends Origin on every POST: only the page itself may open its session (no login forced from elsewhere).
      const status = !fromThePage(req) ? 403 : caller === null ? 401 : 200;
      const headers: Record<string, string | number> = { ...SECURITY_HEADERS, 'cache-control': 'no-store' };
      let body: string;
      if (status === 200) {
        const issued = sessions.issue(caller!, req);
        headers['set-cookie'] = issued.setCookie;
        body = JSON.stringify({ secret: issued.secret });
      } else {
        if (status === 401) headers['www-authenticate'] = 'Bearer';
        body = JSON.stringify({
          error:
            status === 403
              ? 'a session is opened by the dashboard page itself (same origin) only'
              : 'unauthorized: send the token as "Authorization: Bearer TOKEN"',
        });
      }
      headers['content-type'] = 'application/json; charset=utf-8';
      headers['content-length'] = Buffer.byteLength(body);
      res.writeHead(status, headers);
      res.end(body);
    },
    signIn(req, res, url) {
      // A link opened from a terminal or typed in is a navigation of its own (`Sec-Fetch-Site: none`); another site's
      // page has no business signing this browser in, even with a good code (it is spent, not used).
      const code = url.searchParams.get(SIGN_IN_PARAM) ?? '';
      const crossSite = /^(cross|same)-site$/.test(String(req.headers['sec-fetch-site']));
      const caller = crossSite || req.method !== 'GET' ? null : takeSignInCode(code);
      if (caller === null) {
        sendPage(res, req, 401, SIGN_IN_REFUSED_PAGE);
        return;
      }
      url.searchParams.delete(SIGN_IN_PARAM);
      redirectIntoSession(res, url, sessions.issue(caller, req));
    },
    refusePage(req, res, url) {
      if (url.pathname !== '/' || !/text\/html/.test(req.headers.accept ?? '')) return false;
      sendPage(res, req, 401, UNAUTHORIZED_PAGE);
      return true;
    },
  };
}

/**
 * A session just opened: its cookie, and a 303 to the page with the session's secret in the fragment. A fragment is
 * never sent to any server (nor logged by a proxy); the page moves the secret into its origin's storage and takes it
 * out of the address at once (`history.replaceState`), before anything else runs.
 */
function redirectIntoSession(res: ServerResponse, url: URL, issued: IssuedSession): void {
  res.writeHead(303, {
    ...SECURITY_HEADERS,
    location: `${url.pathname}${url.search}#${SESSION_FRAGMENT_KEY}=${issued.secret}`,
    'set-cookie': issued.setCookie,
    'cache-control': 'no-store',
    'content-length': 0,
  });
  res.end();
}

/** A short HTML page of the gateway's own (no script, inline style only). */
function sendPage(res: ServerResponse, req: IncomingMessage, status: number, body: string): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    'cache-control': 'no-store',
    'www-authenticate': 'Bearer',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Throws, saying to build, when the bundled client (which only `npm run build` makes) is not at `bundle`. */
export function assertDashboardBuilt(bundle: string): void {
  if (existsSync(bundle)) return;
  throw new VigilError(
    'INTERNAL',
    `The dashboard is not built: ${bundle} is missing. Run \`npm run build\` (npm ci, npm start and npm test run it).`,
  );
}

const page = (title: string, body: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Vigil — ${title}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;background:#0f1419;color:#d7dde4;display:grid;place-items:center;height:100vh;margin:0}
main{max-width:34rem;padding:2rem;border:1px solid #2a323c;border-radius:10px;background:#161c23}code{color:#7fd1b9}</style></head>
<body><main><h1>${title}</h1>
${body}</main></body></html>
`;

const HOW_TO_SIGN_IN = `<p>Run <code>npx vigil dashboard</code> in the daemon's directory (or <code>vigil dashboard</code> where Vigil is
installed; add <code>--data-dir DIR</code> if the daemon runs with one): it prints a link that signs this browser in,
good once for two minutes. The token itself never goes into the address.</p>
<p>Or open <code>http://HOST:PORT/?token=TOKEN</code> once: the gateway trades the token for a session and takes it out
of the address. The token is <code>VIGIL_TOKEN</code>, or the file <code>token</code> in the daemon's data directory.</p>`;

const UNAUTHORIZED_PAGE = page('Sign in', HOW_TO_SIGN_IN);

const SIGN_IN_REFUSED_PAGE = page(
  'This sign-in link is spent',
  `<p>A sign-in link is good once, for two minutes: this one was used, has expired, or was made by a daemon that has
since restarted.</p>
${HOW_TO_SIGN_IN}`,
);
