/**
 * The dashboard's browser session in Chromium against a real gateway (its runtime on a simulated clock, so a
 * session's twelve hours pass without waiting): signed in at the gateway's origin by a one-time link, a page of
 * another local web server — which receives the session cookie on its own requests, since browsers share cookies
 * between the ports of a host — can neither read the session's secret nor replay the cookie to do anything beyond
 * loading the page's files; the session expires after VIGIL_SESSION_HOURS; "sign out everywhere" (`tokens.revoke
 * {name: "daemon"}`) ends the open ones.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startGatewayHarness, type GatewayHarness, type RawClient } from '../gateway/gateway.fixture.js';
import { CHROMIUM, CHROMIUM_ARGS, WAIT_MS } from './dashboard-browser.fixture.js';

/** A raw upgrade to `/rpc` with these headers (and subprotocols): 101 if it opened, else the HTTP status. */
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

/** Opens a WebSocket to `target` from inside `page` (offering `protocols`) and says whether it opened. */
const socketFromPage = (page: Page, target: string, protocols: string[] = []): Promise<string> =>
  page.evaluate(
    ([url, offered]) =>
      new Promise<string>((resolve) => {
        type Socket = EventTarget & { close(): void };
        const Ctor = (globalThis as unknown as { WebSocket: new (url: string, p: string[]) => Socket }).WebSocket;
        const ws = new Ctor(url, offered);
        ws.addEventListener('open', () => {
          ws.close();
          resolve('open');
        });
        ws.addEventListener('error', () => resolve('refused'));
      }),
    [target, protocols] as const,
  );

const storedSecret = (page: Page): Promise<string | null> =>
  page.evaluate(() => (globalThis as unknown as { localStorage: Storage }).localStorage.getItem('vigil.session'));

describe('the dashboard’s browser session in Chromium', () => {
  let browser: Browser;
  let h: GatewayHarness;
  let admin: RawClient;
  /** Another local web server, as an operator may run one: it records the Cookie headers browsers send it. */
  let elsewhere: Server;
  const cookiesSeenElsewhere: string[] = [];
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`Chromium is not installed (looked for ${CHROMIUM}); run .ci/run or set VIGIL_CHROMIUM.`);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    elsewhere = createServer((req, res) => {
      if (req.headers.cookie !== undefined) cookiesSeenElsewhere.push(req.headers.cookie);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>another local server</p>');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  });

  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
    await h?.close();
    h = undefined as unknown as GatewayHarness;
  });

  afterAll(async () => {
    await browser?.close();
    elsewhere?.close();
  });

  /** A gateway (simulated clock), an operate client, and a browser signed in by a one-time link. */
  async function signedIn(): Promise<{ page: Page; context: BrowserContext; problems: string[] }> {
    h ??= await startGatewayHarness();
    admin = await h.connect();
    const link = (await admin.request('auth.signIn')).result as { path: string; code: string; expiresAt: string };
    expect(link.path).toBe(`/?signin=${link.code}`);
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    await page.goto(`${h.gateway.url}${link.path}`);
    await page.locator('body[data-ready="true"]').waitFor();
    await expect.poll(() => page.locator('#connection').getAttribute('data-state'), { timeout: WAIT_MS }).toBe('open');
    // The address holds neither the code nor the secret once the page runs.
    expect(page.url()).toBe(`${h.gateway.url}/`);
    // The link is spent: a second use signs nothing in.
    const again = await fetch(`${h.gateway.url}${link.path}`, { redirect: 'manual' });
    expect(again.status).toBe(401);
    return { page, context, problems };
  }

  it('is worth nothing off the page: another local server gets the cookie but neither the secret nor a way in', async () => {
    const { page, context, problems } = await signedIn();
    expect(await page.locator('html').getAttribute('data-scope')).toBe('operate');
    const [cookie] = await context.cookies(h.gateway.url);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    const pair = `${cookie!.name}=${cookie!.value}`;
    const secret = await storedSecret(page);
    expect(secret).toMatch(/^[\w-]{40,}$/);

    // The other server, on another port of the same host: the browser sends it the gateway's cookie (the premise).
    const other = await context.newPage();
    await other.goto(`http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/`);
    expect(cookiesSeenElsewhere.some((header) => header.includes(pair))).toBe(true);
    // Its page cannot read the secret (web storage is per origin, port included) nor open /rpc with the cookie.
    expect(await storedSecret(other)).toBeNull();
    const rpcUrl = h.rpcUrl;
    expect(await socketFromPage(other, rpcUrl)).toBe('refused');
    expect(await socketFromPage(other, rpcUrl, ['vigil-session', 'vigil-session-secret.guess'])).toBe('refused');

    // Its server replays the cookie from a script, forging the gateway's own Origin: refused without the secret.
    const origin = new URL(h.gateway.url).origin;
    expect(await upgradeStatus(rpcUrl, { cookie: pair, origin })).toBe(401);
    expect(await upgradeStatus(rpcUrl, { cookie: pair, origin }, ['vigil-session'])).toBe(401);
    expect(
      await upgradeStatus(rpcUrl, { cookie: pair, origin }, [
        'vigil-session',
        `vigil-session-secret.${'A'.repeat(43)}`,
      ]),
    ).toBe(401);
    // Nor does the cookie open a feed, the metrics, /mcp or a new session.
    for (const path of ['/events', '/metrics'])
      expect((await fetch(`${h.gateway.url}${path}`, { headers: { cookie: pair, origin } })).status, path).toBe(401);
    const exchange = await fetch(`${h.gateway.url}/dashboard/session`, {
      method: 'POST',
      headers: { cookie: pair, origin },
    });
    expect(exchange.status).toBe(401);
    // What it does open is what the dashboard shows before it connects: the page's own files, no data.
    expect((await fetch(`${h.gateway.url}/dashboard/dashboard.css`, { headers: { cookie: pair } })).status).toBe(200);

    // The page itself, with the secret only it holds, is in: the pair works, and only from the gateway's origin.
    expect(await socketFromPage(page, rpcUrl, ['vigil-session', `vigil-session-secret.${secret}`])).toBe('open');
    expect(
      await upgradeStatus(rpcUrl, { cookie: pair, origin }, ['vigil-session', `vigil-session-secret.${secret}`]),
    ).toBe(101);
    expect(
      await upgradeStatus(rpcUrl, { cookie: pair, origin: 'http://127.0.0.1:1' }, [
        'vigil-session',
        `vigil-session-secret.${secret}`,
      ]),
    ).not.toBe(101);
    // Nothing was created by the attempts: the daemon holds no token.
    expect((await admin.request('tokens.list')).result).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('expires after VIGIL_SESSION_HOURS, whatever the browser keeps', async () => {
    h = await startGatewayHarness({ gateway: { sessionHours: 12 } });
    const { page, context } = await signedIn();
    const [cookie] = await context.cookies(h.gateway.url);
    const pair = `${cookie!.name}=${cookie!.value}`;
    const protocols = ['vigil-session', `vigil-session-secret.${await storedSecret(page)}`];
    const origin = new URL(h.gateway.url).origin;
    expect(cookie!.expires - Date.now() / 1000).toBeGreaterThan(11.9 * 3600);

    h.clock.increment(12 * 3_600_000 - 1000);
    expect(await upgradeStatus(h.rpcUrl, { cookie: pair, origin }, protocols)).toBe(101);
    h.clock.increment(1000);
    // The cookie sent as it was (the browser's copy has a real-time Max-Age the simulated clock did not touch).
    expect(await upgradeStatus(h.rpcUrl, { cookie: pair, origin }, protocols)).toBe(401);
    const reloaded = await page.reload();
    expect(reloaded?.status()).toBe(401);
    expect(await page.locator('h1').textContent()).toBe('Sign in');
  });

  it('ends every open session when an operator signs every browser out, and lets a new sign-in in', async () => {
    const first = await signedIn();
    const second = await signedIn();
    const [cookie] = await first.context.cookies(h.gateway.url);
    const pair = `${cookie!.name}=${cookie!.value}`;
    const protocols = ['vigil-session', `vigil-session-secret.${await storedSecret(first.page)}`];
    const origin = new URL(h.gateway.url).origin;

    expect((await admin.request('tokens.revoke', { name: 'daemon' })).result).toBe(true);
    for (const { page } of [first, second])
      await expect
        .poll(() => page.locator('#connection').getAttribute('data-state'), { timeout: WAIT_MS })
        .not.toBe('open');
    expect(await upgradeStatus(h.rpcUrl, { cookie: pair, origin }, protocols)).toBe(401);
    expect(h.ofType('auth.sessions_revoked')).toHaveLength(1);
    // The daemon's token itself still works, and a new sign-in opens a new session.
    expect((await admin.request('heartbeat.status')).result).toBeDefined();
    const third = await signedIn();
    expect(await third.page.locator('html').getAttribute('data-scope')).toBe('operate');
  });
});
