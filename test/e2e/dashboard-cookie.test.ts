/**
 * The dashboard's cookie session in Chromium against a real daemon: opened once with `/?token=` (a `read` token), the
 * page's URL and its WebSocket carry no token, the page works at the token's scope, a page of another origin cannot
 * ride the cookie, and revoking the token ends the session.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';

/** Debian's chromium (`apt-get install chromium`); VIGIL_CHROMIUM points elsewhere. */
const CHROMIUM = process.env['VIGIL_CHROMIUM'] ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const TOKEN = 'dashboard-cookie-e2e-token-3b8d41';
/** Bounds every wait on the page: generous for a loaded 2-core CI machine, never a sleep. */
const WAIT_MS = 15_000;

/** Opens a WebSocket to `target` from inside `page` and says whether it opened or was refused. */
const socketFromPage = (page: Page, target: string): Promise<string> =>
  page.evaluate(
    (url) =>
      new Promise<string>((resolve) => {
        const Socket = (globalThis as unknown as { WebSocket: new (url: string) => EventTarget & { close(): void } })
          .WebSocket;
        const ws = new Socket(url);
        ws.addEventListener('open', () => {
          ws.close();
          resolve('open');
        });
        ws.addEventListener('error', () => resolve('refused'));
      }),
    target,
  );

/** A raw upgrade to `/rpc` with these headers: 101 if it opened, else the HTTP status it was refused with. */
function upgradeStatus(rpcUrl: string, headers: Record<string, string>, protocols: string[] = []): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(rpcUrl, protocols, { headers });
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('error', () => undefined);
  });
}

// Never skipped: without a browser the cookie session is untested, so a missing Chromium fails here (.ci/run installs it).
describe('the dashboard’s cookie session in Chromium against a real daemon', () => {
  let dataDir: string;
  let daemon: DaemonProcess;
  let url: string;
  let browser: Browser;
  let rpc: VigilClient;
  /** Another origin on the same host (another port): the same site, so SameSite alone would let the cookie through. */
  let elsewhere: Server;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`Chromium is not installed (looked for ${CHROMIUM}); run .ci/run or set VIGIL_CHROMIUM.`);
    dataDir = await mkdtemp(join(tmpdir(), 'vigil-dashboard-cookie-'));
    daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], {
      ...FAST_ENV,
      VIGIL_BEAT_MS: '50',
      VIGIL_BEAT_MIN_MS: '25',
      VIGIL_BEAT_MAX_MS: '100',
      VIGIL_TOKEN: TOKEN,
      VIGIL_LOG_LEVEL: 'info',
    });
    const listening = await daemon.waitFor((line) => line.msg === 'gateway listening', 20_000, 'gateway listening');
    url = String(listening.url);
    rpc = await connect({ url, token: TOKEN, reconnect: false });
    elsewhere = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>elsewhere</p>'),
    );
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await rpc?.close();
    elsewhere?.close();
    if (daemon !== undefined && daemon.proc.exitCode === null) {
      daemon.kill('SIGKILL');
      await daemon.exited;
    }
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps the token out of the page’s URL and its WebSocket, works at the token’s scope, refuses other origins and dies with the token', async () => {
    const { token: readToken } = await rpc.tokens.create({ scope: 'read', name: 'cookie-viewer' });
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    // Every request the page made and every socket it opened, to find the token in any URL but the one typed.
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const sockets: string[] = [];
    page.on('websocket', (socket) => sockets.push(socket.url()));

    const first = await page.goto(`${url}/?token=${readToken}`);
    await page.locator('body[data-ready="true"]').waitFor();

    // The address: the gateway answered 303 to the page without the token, so the tab never showed it.
    expect(page.url()).toBe(`${url}/`);
    expect(first?.request().redirectedFrom()?.url()).toBe(`${url}/?token=${readToken}`);
    expect(requested.filter((address) => address.includes(readToken))).toEqual([`${url}/?token=${readToken}`]);
    // The WebSocket: the cookie, no token.
    expect(sockets).toHaveLength(1);
    expect(new URL(sockets[0]!).pathname).toBe('/rpc');
    expect(sockets[0]).not.toContain(readToken);
    expect(new URL(sockets[0]!).search).toBe('');
    // The cookie: HttpOnly (no script sees it), SameSite=Strict, and not the token.
    const cookies = await context.cookies(url);
    expect(cookies).toHaveLength(1);
    const [cookie] = cookies;
    expect(cookie).toMatchObject({ path: '/', httpOnly: true, sameSite: 'Strict', secure: false });
    expect(cookie!.value).not.toContain(readToken);
    expect(await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).toBe(
      '',
    );

    // The dashboard works, at the token's scope: live beats, and a read token's view.
    await expect.poll(() => page.locator('#connection').getAttribute('data-state'), { timeout: WAIT_MS }).toBe('open');
    const beat = async (): Promise<number> =>
      Number(((await page.locator('#hb-beat').textContent()) ?? '').replace(/\D/g, '') || -1);
    await expect.poll(beat, { timeout: WAIT_MS }).toBeGreaterThan(0);
    const seen = await beat();
    await expect.poll(beat, { timeout: WAIT_MS }).toBeGreaterThan(seen + 3);
    expect(await page.locator('html').getAttribute('data-scope')).toBe('read');

    // The cookie alone opens nothing, even from the page's own origin: the session's secret (in this origin's storage,
    // offered as a subprotocol by the dashboard) must come with it.
    const rpcUrl = `${url.replace('http', 'ws')}/rpc`;
    expect(await socketFromPage(page, rpcUrl)).toBe('refused');
    const secret = await page.evaluate(() =>
      (globalThis as unknown as { localStorage: { getItem(key: string): string | null } }).localStorage.getItem(
        'vigil.session',
      ),
    );
    const protocols = ['vigil-session', `vigil-session-secret.${secret}`];
    // Another origin of the same host: the browser sends the cookie along (same site), the gateway refuses it.
    const other = await context.newPage();
    await other.goto(`http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/`);
    expect(await socketFromPage(other, rpcUrl)).toBe('refused');
    await other.close();
    // The same cookie sent by hand: accepted from the gateway's own origin, refused from any other or from none.
    const pair = `${cookie!.name}=${cookie!.value}`;
    const host = new URL(url).host;
    expect(await upgradeStatus(rpcUrl, { cookie: pair, origin: `http://${host}` }, protocols)).toBe(101);
    expect(await upgradeStatus(rpcUrl, { cookie: pair, origin: `http://${host}` })).toBe(401);
    // (401 by the cookie's own same-origin test; 403 where the gateway's front-door Origin check refuses it first.)
    expect([401, 403]).toContain(
      await upgradeStatus(rpcUrl, { cookie: pair, origin: 'http://evil.example' }, protocols),
    );
    expect(await upgradeStatus(rpcUrl, { cookie: pair }, protocols)).toBe(401);
    expect((await fetch(`${url}/events`, { headers: { cookie: pair, origin: `http://${host}` } })).status).toBe(401);

    // Revoked: the page's connection is closed, and the cookie opens neither the page nor a socket any more.
    await rpc.tokens.revoke({ name: 'cookie-viewer' });
    await expect
      .poll(() => page.locator('#connection').getAttribute('data-state'), { timeout: WAIT_MS })
      .not.toBe('open');
    expect(await upgradeStatus(rpcUrl, { cookie: pair, origin: `http://${host}` }, protocols)).toBe(401);
    const reloaded = await page.reload();
    expect(reloaded?.status()).toBe(401);
    expect(await page.locator('h1').textContent()).toBe('Sign in');

    expect(problems).toEqual([]);
    await context.close();
  });
});
