/**
 * The dashboard's static files at `GET /` and `/dashboard/…`: a fixed list (no path from a request ever reaches the
 * file system), with content types, ETags, security headers and a session cookie that lets reloads and the page's
 * own scripts load without the token in their URLs.
 */
import { createHash, createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VigilError } from '../errors.js';
import { createTokenCheck, tokenFromRequest } from './gateway-auth.js';

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
  // The first load's URL carries ?token=: no Referer may repeat it, even to this server.
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

/** The dashboard's routes plus the session check the HTTP server consults before refusing a request. */
export interface DashboardRoutes {
  /** Handlers by path (`/` and every `/dashboard/…` file). */
  routes: Record<string, (req: IncomingMessage, res: ServerResponse, url: URL) => void>;
  /** True when `req` is for one of the dashboard's files and carries this gateway's session cookie. */
  hasSession(req: IncomingMessage, url: URL): boolean;
  /** Answers an unauthenticated browser asking for the page with a short HTML explanation; false if it is not one. */
  refusePage(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
}

/**
 * The dashboard for a gateway whose token is `token`. The session cookie holds an HMAC of the token, not the token,
 * and is honoured only for these static files: `/rpc`, `/events` and `/metrics` still need the token itself. The page
 * opened with any valid token (`isValidToken`; a scoped one too) sets it: the files are the same for every scope, and
 * what the page may do is what its token may do over `/rpc`.
 */
export function createDashboardRoutes(
  token: string,
  isValidToken: (given: string | undefined) => boolean = createTokenCheck(token),
): DashboardRoutes {
  // The files are read at their first request (start-up stays fast); a missing build is said at once, not as a 404 later.
  assertDashboardBuilt(DASHBOARD_FILES['/dashboard/vigil-client.js']!);
  const session = createHmac('sha256', token).update('vigil dashboard session v1').digest('base64url');
  // Named after the session, so daemons on other ports of the same host (cookies ignore ports) keep theirs apart.
  const cookieName = `vigil_dashboard_${createHash('sha256').update(session).digest('hex').slice(0, 12)}`;
  const isValidSession = createTokenCheck(session);
  const cache = new Map<string, LoadedFile>();

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

  const serve = (req: IncomingMessage, res: ServerResponse, url: URL): void => {
    const file = load(url.pathname);
    const headers: Record<string, string | number> = { ...SECURITY_HEADERS, 'content-type': file.type };
    if (url.pathname === '/') {
      // The page is asked for with the token in its URL: nothing may keep a copy of that response.
      headers['cache-control'] = 'no-store';
      headers['content-security-policy'] = file.csp ?? "default-src 'none'";
      if (isValidToken(tokenFromRequest(req, url))) {
        // A session cookie (no expiry): reloads and the page's own files load without the token in their URLs.
        headers['set-cookie'] = `${cookieName}=${session}; Path=/; HttpOnly; SameSite=Strict`;
      }
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
      if (!Object.hasOwn(DASHBOARD_FILES, url.pathname)) return false;
      return isValidSession(readCookie(req.headers.cookie, cookieName));
    },
    refusePage(req, res, url) {
      if (url.pathname !== '/' || !/text\/html/.test(req.headers.accept ?? '')) return false;
      const body = UNAUTHORIZED_PAGE;
      res.writeHead(401, {
        ...SECURITY_HEADERS,
        'content-type': 'text/html; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
        'cache-control': 'no-store',
        'www-authenticate': 'Bearer',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
      return true;
    },
  };
}

/** Throws, saying to build, when the bundled client (which only `npm run build` makes) is not at `bundle`. */
export function assertDashboardBuilt(bundle: string): void {
  if (existsSync(bundle)) return;
  throw new VigilError(
    'INTERNAL',
    `The dashboard is not built: ${bundle} is missing. Run \`npm run build\` (npm ci, npm start and npm test run it).`,
  );
}

/** The value of cookie `name` in a Cookie header, if present. */
function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const UNAUTHORIZED_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Vigil — token required</title>
<style>body{font:15px/1.5 system-ui,sans-serif;background:#0f1419;color:#d7dde4;display:grid;place-items:center;height:100vh;margin:0}
main{max-width:34rem;padding:2rem;border:1px solid #2a323c;border-radius:10px;background:#161c23}code{color:#7fd1b9}</style></head>
<body><main><h1>Token required</h1>
<p>Open the dashboard once with the gateway token in the address: <code>http://HOST:PORT/?token=TOKEN</code>.
The page then keeps it for this browser session and removes it from the address bar.</p>
<p>The token is <code>VIGIL_TOKEN</code>, or the file <code>token</code> in the daemon's data directory.</p></main></body></html>
`;
