/**
 * The dashboard's static files and its cookie session: only the fixed list, with content types, caching and security
 * headers; the token traded once for a cookie that opens those files and the page's WebSocket (same origin, the
 * token's scope, the token's life) and nothing else; no request path reaches the file system.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { assertDashboardBuilt, DASHBOARD_FILES } from '../../src/gateway/dashboard-route.js';
import { isVigilError } from '../../src/errors.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from './gateway.fixture.js';

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness();
});
afterAll(async () => {
  await h.close();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request: the path goes out exactly as given (fetch would normalise `..` away first). */
function raw(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  const { port } = new URL(h.gateway.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

const bearer = { authorization: `Bearer ${TEST_TOKEN}` };

/** The subprotocols the page offers on its upgrade to hand over its session's secret. */
const withSecret = (secret: string): string[] => ['vigil-session', `vigil-session-secret.${secret}`];

/** The session the first page load with `token` opens: its cookie's `name=value` pair, and the page's subprotocols. */
async function session(token = TEST_TOKEN): Promise<{ cookie: string; protocols: string[] }> {
  const page = await raw(`/?token=${token}`);
  expect(page.status).toBe(303);
  const setCookie = page.headers['set-cookie'];
  expect(setCookie).toHaveLength(1);
  const secret = /#session=([\w-]+)$/.exec(String(page.headers['location']))![1]!;
  return { cookie: setCookie![0]!.split(';')[0]!, protocols: withSecret(secret) };
}

/** The `name=value` pair the first page load with `token` sets. */
async function sessionCookie(token = TEST_TOKEN): Promise<string> {
  return (await session(token)).cookie;
}

/**
 * How a request from another origin or host is refused: 401 by the cookie's own same-origin test, or 403 where the
 * gateway's front door (the Host/Origin check every path gets) refuses it first. Either way, never served.
 */
const REFUSED = [401, 403];

/** The gateway's own origin, as a browser on its page sends it. */
const ownOrigin = (): string => `http://127.0.0.1:${new URL(h.gateway.url).port}`;

/** A WebSocket upgrade to /rpc with these headers: the open socket, or the HTTP status it was refused with. */
function upgrade(headers: Record<string, string>, protocols: string[] = []): Promise<WebSocket | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(h.rpcUrl, protocols, { headers });
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('open', () => resolve(ws));
    ws.once('error', () => undefined);
  });
}

/** Sends one request on an open socket and resolves with its response. */
function call(ws: WebSocket, method: string, params: unknown = {}): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    ws.once('message', (data) => resolve(JSON.parse((data as Buffer).toString('utf8')) as Record<string, unknown>));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  });
}

describe('the dashboard page and files', () => {
  it('trades ?token= for a session cookie and a 303 to the page without it, which it serves uncached under a strict policy', async () => {
    const first = await raw(`/?token=${TEST_TOKEN}&view=goals`);
    expect(first.status).toBe(303);
    // The session's secret rides in the fragment, which no browser sends to any server; the page takes it out.
    expect(first.headers['location']).toMatch(/^\/\?view=goals#session=[\w-]{43}$/);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.headers['referrer-policy']).toBe('no-referrer');
    expect(first.body).toBe('');
    const [cookie, ...attributes] = (first.headers['set-cookie'] as string[])[0]!.split(';').map((part) => part.trim());
    expect(attributes).toEqual(['Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=43200']);
    // The cookie is a signed session statement: not the token.
    expect(cookie).not.toContain(TEST_TOKEN);

    const page = await raw('/', { cookie: cookie! });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body).toContain('<script type="module" src="/dashboard/dashboard-app.js"></script>');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    // The one inline script, the import map, is allowed by its exact hash.
    const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(page.body)![1]!;
    expect(csp).toContain(`'sha256-${createHash('sha256').update(importMap).digest('base64')}'`);
    // A program with the Bearer header gets the page itself, and no cookie it has no use for.
    const program = await raw('/', bearer);
    expect(program.status).toBe(200);
    expect(program.headers['set-cookie']).toBeUndefined();
  });

  it('refuses the page without the token: JSON for programs, a short explanation for browsers', async () => {
    const bare = await raw('/');
    expect(bare.status).toBe(401);
    expect(bare.headers['content-type']).toMatch(/^application\/json/);
    const browser = await raw('/', { accept: 'text/html,application/xhtml+xml' });
    expect(browser.status).toBe(401);
    expect(browser.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(browser.body).toContain('?token=');
    expect(browser.body).not.toContain(TEST_TOKEN);
    expect((await raw('/?token=wrong')).status).toBe(401);
    expect((await raw('/dashboard/dashboard-app.js')).status).toBe(401);
    expect((await raw('/', { cookie: 'vigil_session_000000000000=forged.forged' })).status).toBe(401);
    // A wrong token in the address is refused even beside a good cookie: the address wins, and it is wrong.
    expect((await raw('/?token=wrong', { cookie: await sessionCookie() })).status).toBe(401);
  });

  it('lets the session cookie load the page and its files, and with its secret its WebSocket from the same origin, and nothing else', async () => {
    const { cookie, protocols } = await session();
    const page = await raw('/', { cookie });
    expect(page.status).toBe(200);
    // Only a token sets the cookie; a cookie-authorised load does not renew it.
    expect(page.headers['set-cookie']).toBeUndefined();
    expect((await raw('/dashboard/dashboard-app.js', { cookie: `other=1; ${cookie}` })).status).toBe(200);
    // A request that says it comes from elsewhere does not get even the files by the cookie.
    expect(REFUSED).toContain(
      (await raw('/dashboard/dashboard-app.js', { cookie, origin: 'http://evil.example' })).status,
    );
    expect((await raw('/dashboard/dashboard-app.js', { cookie, 'sec-fetch-site': 'cross-site' })).status).toBe(401);

    expect((await raw('/metrics', { cookie })).status).toBe(401);
    expect((await raw('/events', { cookie })).status).toBe(401);
    expect((await raw('/events', { cookie, origin: ownOrigin() })).status).toBe(401);

    // The upgrade: the cookie and the session's secret from the gateway's own origin open /rpc, as the daemon token's
    // caller; the gateway selects the plain subprotocol, never echoing the secret.
    const socket = await upgrade({ cookie, origin: ownOrigin() }, protocols);
    expect((socket as WebSocket).protocol).toBe('vigil-session');
    expect(socket).toBeInstanceOf(WebSocket);
    expect((await call(socket as WebSocket, 'auth.whoami'))['result']).toMatchObject({ scope: 'operate' });
    (socket as WebSocket).close();
    // The cookie alone (a replay: another local server receives it), without an Origin (not a browser page), or from
    // another origin opens nothing.
    expect(await upgrade({ cookie, origin: ownOrigin() })).toBe(401);
    expect(await upgrade({ cookie, origin: ownOrigin() }, withSecret('A'.repeat(43)))).toBe(401);
    expect(await upgrade({ cookie }, protocols)).toBe(401);
    expect(REFUSED).toContain(await upgrade({ cookie, origin: 'http://evil.example' }, protocols));
    const otherPort = `http://127.0.0.1:${Number(new URL(h.gateway.url).port) + 1}`;
    expect(REFUSED).toContain(await upgrade({ cookie, origin: otherPort }, protocols));
    expect(REFUSED).toContain(await upgrade({ cookie, origin: ownOrigin(), host: 'evil.example' }, protocols));
  });

  it('carries a scoped token’s scope into its session and ends the session with the token', async () => {
    const created = await h.runtime.tokens.create({ scope: 'read', name: 'cookie-reader' });
    const { cookie, protocols } = await session(created.token);
    const socket = (await upgrade({ cookie, origin: ownOrigin() }, protocols)) as WebSocket;
    expect(socket).toBeInstanceOf(WebSocket);
    expect((await call(socket, 'auth.whoami'))['result']).toMatchObject({ scope: 'read', name: 'cookie-reader' });
    const refused = await call(socket, 'goals.add', { title: 'not for a reader' });
    expect(refused['error']).toMatchObject({ code: -32003, data: { scope: 'talk' } });

    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    await h.runtime.tokens.revoke('cookie-reader');
    expect(await closed).toBe(1008);
    expect((await raw('/', { cookie })).status).toBe(401);
    expect(await upgrade({ cookie, origin: ownOrigin() }, protocols)).toBe(401);
  });

  it('trades a Bearer token for the cookie and the secret at POST /dashboard/session, for the page’s own origin only', async () => {
    const origin = ownOrigin();
    const opened = await raw('/dashboard/session', { ...bearer, origin }, 'POST');
    expect(opened.status).toBe(200);
    expect(opened.headers['cache-control']).toBe('no-store');
    const cookie = (opened.headers['set-cookie'] as string[])[0]!.split(';')[0]!;
    const { secret } = JSON.parse(opened.body) as { secret: string };
    expect(await raw('/', { cookie }).then((page) => page.status)).toBe(200);
    const socket = await upgrade({ cookie, origin }, withSecret(secret));
    expect(socket).toBeInstanceOf(WebSocket);
    (socket as WebSocket).close();

    expect((await raw('/dashboard/session', { authorization: 'Bearer wrong', origin }, 'POST')).status).toBe(401);
    expect((await raw('/dashboard/session', { origin }, 'POST')).status).toBe(401);
    // The header only: a token in this path's query string is not taken.
    expect((await raw(`/dashboard/session?token=${TEST_TOKEN}`, { origin }, 'POST')).status).toBe(401);
    const foreign = await raw('/dashboard/session', { ...bearer, origin: 'http://evil.example' }, 'POST');
    expect(foreign.status).toBe(403);
    expect(foreign.headers['set-cookie']).toBeUndefined();
    expect((await raw('/dashboard/session', bearer, 'POST')).status).toBe(403);
  });

  it('takes an origin the operator declared the gateway’s for the page’s own, behind a proxy that sends a Host of its own', async () => {
    const proxied = await startGatewayHarness({ gateway: { allowedOrigins: ['https://vigil.example.com'] } });
    try {
      const { port } = new URL(proxied.gateway.url);
      // What a proxy that rewrites Host passes on: its own Host for the gateway, the browser's Origin.
      const post = (origin: string): Promise<Answer> =>
        new Promise((resolve, reject) => {
          const req = request(
            { host: '127.0.0.1', port, path: '/dashboard/session', method: 'POST', headers: { ...bearer, origin } },
            (res) => {
              let body = '';
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => (body += chunk));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
            },
          );
          req.once('error', reject);
          req.end();
        });
      const opened = await post('https://vigil.example.com');
      expect(opened.status).toBe(200);
      const cookie = (opened.headers['set-cookie'] as string[])[0]!.split(';')[0]!;
      const { secret } = JSON.parse(opened.body) as { secret: string };
      const rpcUrl = `${proxied.gateway.url.replace('http', 'ws')}/rpc`;
      const socket = await new Promise<WebSocket | number>((resolve) => {
        const ws = new WebSocket(rpcUrl, withSecret(secret), {
          headers: { cookie, origin: 'https://vigil.example.com' },
        });
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('open', () => resolve(ws));
        ws.once('error', () => undefined);
      });
      expect(socket).toBeInstanceOf(WebSocket);
      (socket as WebSocket).close();
      // Another origin is still refused, by the front door before the cookie's own test.
      expect((await post('https://evil.example')).status).toBe(403);
    } finally {
      await proxied.close();
    }
  });

  it('serves every listed file with its content type, an ETag and revalidation (304)', async () => {
    const types: Record<string, RegExp> = {
      html: /^text\/html; charset=utf-8$/,
      css: /^text\/css; charset=utf-8$/,
      js: /^text\/javascript; charset=utf-8$/,
      svg: /^image\/svg\+xml$/,
      map: /^application\/json; charset=utf-8$/,
    };
    for (const path of Object.keys(DASHBOARD_FILES).filter((p) => p !== '/')) {
      const answer = await raw(path, bearer);
      expect(answer.status, path).toBe(200);
      expect(answer.headers['content-type'], path).toMatch(types[path.split('.').pop()!]!);
      expect(answer.headers['cache-control'], path).toBe('private, no-cache');
      expect(answer.body, path).toBe(readFileSync(DASHBOARD_FILES[path]!, 'utf8'));
      const etag = String(answer.headers['etag']);
      const again = await raw(path, { ...bearer, 'if-none-match': etag });
      expect(again.status, path).toBe(304);
      expect(again.body, path).toBe('');
    }
    const head = await raw('/dashboard/dashboard.css', bearer, 'HEAD');
    expect(head.status).toBe(200);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    expect(head.body).toBe('');
    expect((await raw('/dashboard/dashboard.css', bearer, 'POST')).status).toBe(405);
  });

  it('lists every file the page loads: each module import and each link of the page is in the fixed list', () => {
    const served = new Set(Object.keys(DASHBOARD_FILES));
    const page = readFileSync(DASHBOARD_FILES['/']!, 'utf8');
    const links = [...page.matchAll(/(?:href|src)="(\/[^"]*)"/g)].map((m) => m[1]!);
    const mapped = Object.values(
      JSON.parse(/<script type="importmap">([\s\S]*?)<\/script>/.exec(page)![1]!).imports as Record<string, string>,
    );
    expect(links.length).toBeGreaterThan(3);
    for (const link of [...links, ...mapped]) expect(served, link).toContain(link);
    for (const path of served) {
      if (!path.endsWith('.js') || path.includes('/vendor/')) continue;
      const source = readFileSync(DASHBOARD_FILES[path]!, 'utf8');
      for (const [, specifier] of source.matchAll(/^import\s[^'"]*['"]([^'"]+)['"]/gm)) {
        if (!specifier!.startsWith('.')) {
          expect(mapped.length, `${path} imports ${specifier} through the import map`).toBeGreaterThan(0);
          continue;
        }
        expect(served, `${path} imports ${specifier}`).toContain(new URL(specifier!, `http://x${path}`).pathname);
      }
    }
  });

  it('serves the build: the bundled typed client beside the copies in dist/, and says to build when it is missing', () => {
    for (const file of Object.values(DASHBOARD_FILES).filter((f) => !f.includes('/node_modules/'))) {
      expect(file).toMatch(/\/dist\/gateway\/dashboard\/[^/]+$/);
    }
    expect(DASHBOARD_FILES['/dashboard/vigil-client.js']).toBeDefined();
    expect(Object.keys(DASHBOARD_FILES).filter((path) => /browser-client/.test(path))).toEqual([]);
    const missing = '/nowhere/dist/gateway/dashboard/vigil-client.js';
    const err = (() => {
      try {
        assertDashboardBuilt(missing);
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(isVigilError(err, 'INTERNAL')).toBe(true);
    expect((err as Error).message).toContain(missing);
    expect((err as Error).message).toContain('npm run build');
  });

  it('never reaches the file system from a request path: traversal, encodings and unlisted files are 404', async () => {
    const attempts = [
      '/dashboard/../package.json',
      '/dashboard/%2e%2e/package.json',
      '/dashboard/..%2f..%2fpackage.json',
      '/dashboard/%2e%2e%2f%2e%2e%2fhttp-server.ts',
      '/dashboard/vendor/../../../../package.json',
      '/dashboard/tsconfig.json',
      '/dashboard/',
      '/dashboard',
      '/dashboard/dashboard-app.js/',
      '/dashboard/DASHBOARD-APP.JS',
      '/index.html',
      '//etc/passwd',
      '/dashboard/vendor/uPlot.cjs.js',
    ];
    for (const path of attempts) {
      const answer = await raw(path, bearer);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toContain('"name": "vigil"');
    }
  });
});
