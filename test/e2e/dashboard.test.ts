/**
 * The dashboard end to end: Debian's Chromium, driven by playwright-core, against a real daemon child process — load
 * with the token, watch beats, add a goal, talk to the agent, create and restore a checkpoint, take a screenshot.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';
import { ROOT } from './run-process.js';

/** Debian's chromium (`apt-get install chromium`); VIGIL_CHROMIUM points elsewhere. */
const CHROMIUM = process.env['VIGIL_CHROMIUM'] ?? '/usr/bin/chromium';
/** The flags the machine notes give: no sandbox as root, and no background traffic to a network that is not there. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ARTIFACTS = join(ROOT, 'test-artifacts');
const TOKEN = 'dashboard-e2e-token-5f2c9a1e7b';
/** Bounds every wait on the page: generous for a loaded 2-core CI machine, never a sleep. */
const WAIT_MS = 15_000;

const timings: Record<string, number> = {};
async function timed<T>(step: string, fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await fn();
  } finally {
    timings[step] = Math.round(performance.now() - start);
  }
}

/** The beat count the page shows (digits only: it is formatted with thousands separators). */
const beatShown = (page: Page): Promise<number> =>
  page
    .locator('#hb-beat')
    .textContent()
    .then((text) => Number((text ?? '').replace(/\D/g, '') || -1));

/** Waits (bounded) until the page shows a beat count of at least `atLeast`. */
const beatReaches = (page: Page, atLeast: number): Promise<void> =>
  expect.poll(() => beatShown(page), { timeout: WAIT_MS, interval: 50 }).toBeGreaterThanOrEqual(atLeast);

// Never skipped: without a browser the dashboard is untested, so a missing Chromium fails here (.ci/run installs it).
describe('the dashboard in Chromium against a real daemon', () => {
  let dataDir: string;
  let daemon: DaemonProcess;
  let url: string;
  let browser: Browser;
  let rpc: VigilClient;
  const problems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is not installed (looked for ${CHROMIUM}). Run .ci/run, which installs Debian's chromium ` +
          `(apt-get update && apt-get install -y chromium), or set VIGIL_CHROMIUM to a Chromium binary.`,
      );
    }
    await mkdir(ARTIFACTS, { recursive: true });
    dataDir = await mkdtemp(join(tmpdir(), 'vigil-dashboard-e2e-'));
    daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], {
      ...FAST_ENV,
      // Fast enough to watch beats advance, slow enough to leave CPU to the suites running beside this one.
      VIGIL_BEAT_MS: '50',
      VIGIL_BEAT_MIN_MS: '25',
      VIGIL_BEAT_MAX_MS: '100',
      // Periodic checkpoints rarely, so the one the test creates is not pruned before it is restored.
      VIGIL_CHECKPOINT_INTERVAL_BEATS: '2000',
      VIGIL_TOKEN: TOKEN,
      // Every line the daemon can write, so "the token is never logged" covers them all.
      VIGIL_LOG_LEVEL: 'trace',
    });
    const listening = await timed('daemon start', () =>
      daemon.waitFor((line) => line.msg === 'gateway listening', 20_000, 'gateway listening'),
    );
    url = String(listening.url);
    rpc = await connect({ url, token: TOKEN, reconnect: false });
    browser = await timed('chromium launch', () =>
      chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS }),
    );
  });

  afterAll(async () => {
    await browser?.close();
    await rpc?.close();
    if (daemon !== undefined && daemon.proc.exitCode === null) {
      daemon.kill('SIGKILL');
      await daemon.exited;
    }
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
    if (Object.keys(timings).length > 0) console.log(`dashboard e2e timings (ms): ${JSON.stringify(timings)}`);
  });

  it('shows the live agent and drives it: beats, a goal, a reply, a checkpoint created and restored through the dialog', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (message) => {
      // Errors include CSP violations and failed loads (a 401 or 404 for one of the page's own files).
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    // What the page fetched and which sockets it opened: the bundled typed client, over /rpc by the session cookie.
    const loaded: string[] = [];
    page.on('request', (request) => loaded.push(new URL(request.url()).pathname));
    const sockets: URL[] = [];
    page.on('websocket', (socket) => sockets.push(new URL(socket.url())));

    // Load with the token once: the gateway trades it for the session cookie and redirects to the page without it.
    await timed('page load to live', async () => {
      await page.goto(`${url}/?token=${TOKEN}`);
      await page.locator('body[data-ready="true"]').waitFor();
    });
    expect(page.url()).toBe(`${url}/`);
    // The page runs the typed client of src/client, bundled by esbuild, not a twin of it.
    expect(loaded).toContain('/dashboard/vigil-client.js');
    expect(loaded.filter((path) => /browser-client/.test(path))).toEqual([]);
    // The WebSocket rides the HttpOnly cookie: no token in its URL, none kept by the page.
    expect(sockets.map((socket) => [socket.pathname, socket.search])).toEqual([['/rpc', '']]);
    // (This project type-checks tests without the DOM library, hence the cast.)
    const storedToken = await page.evaluate(() =>
      (globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } }).sessionStorage.getItem(
        'vigil.token',
      ),
    );
    expect(storedToken).toBeNull();
    await expect.poll(() => page.locator('#connection').getAttribute('data-state'), { timeout: WAIT_MS }).toBe('open');

    // The beat count advances by itself (the heartbeat.beat feed).
    await timed('beat count advances', async () => {
      await beatReaches(page, 0);
      await beatReaches(page, (await beatShown(page)) + 10);
    });

    // A goal added in the form is listed.
    const goalTitle = `Water the plants ${Date.now().toString(36)}`;
    await timed('add a goal', async () => {
      await page.fill('#goal-title', goalTitle);
      await page.selectOption('#goal-priority', '8');
      await page.click('#goal-form button[type="submit"]');
      await page.locator('#goals li', { hasText: goalTitle }).waitFor();
    });
    expect(await page.locator('#goals li', { hasText: goalTitle }).locator('.prio').textContent()).toBe('P8');
    expect((await rpc.goals.list()).some((goal) => goal.title === goalTitle)).toBe(true);

    // A message sent from the box appears, and so does the agent's reply to that turn.
    await timed('message and reply', async () => {
      const text = 'Hello Vigil, what are you working on?';
      await page.fill('#send-text', text);
      await page.click('#send-form button[type="submit"]');
      const sent = page.locator('.chat-message', { hasText: text }).last();
      await sent.waitFor();
      const turn = await sent.getAttribute('data-turn');
      expect(turn).toBeTruthy();
      await page.locator(`.chat-reply[data-turn="${turn}"]`).waitFor();
    });

    // A checkpoint created with the button is listed (and highlighted).
    const created = await timed('create a checkpoint', async () => {
      await page.click('#checkpoint-create');
      const row = page.locator('#checkpoints tr.fresh');
      await row.waitFor();
      return {
        id: (await row.getAttribute('data-id'))!,
        beat: Number(((await row.locator('td').nth(1).textContent()) ?? '').replace(/\D/g, '')),
      };
    });
    expect((await rpc.checkpoint.list()).map((c) => c.id)).toContain(created.id);

    // Restore goes through the gateway's -32001 confirmation, shown in a dialog; cancel first, then confirm.
    await timed('restore through the dialog', async () => {
      const restoreButton = page.locator(`#checkpoints tr[data-id="${created.id}"] button`, { hasText: 'Restore' });
      await restoreButton.click();
      await page.locator('#restore-dialog[open]').waitFor();
      // The dialog shows the -32001 answer's data: the checkpoint's id and beat.
      expect(await page.locator('#restore-id').textContent()).toBe(created.id);
      expect(Number((await page.locator('#restore-beat').textContent())?.replace(/\D/g, ''))).toBe(created.beat);
      await page.click('#restore-cancel');
      await page.locator('#restore-dialog[open]').waitFor({ state: 'detached' });
      expect((await rpc.heartbeat.status()).restoredFrom).not.toBe(created.id);

      await restoreButton.click();
      await page.locator('#restore-dialog[open]').waitFor();
      await page.click('#restore-confirm');
      await page.locator('.toast', { hasText: `Restored ${created.id}` }).waitFor();
    });
    expect((await rpc.heartbeat.status()).restoredFrom).toBe(created.id);
    await expect.poll(() => page.locator('#hb-restored').getAttribute('title'), { timeout: WAIT_MS }).toBe(created.id);
    // The agent beats on from the checkpoint.
    await beatReaches(page, created.beat + 1);

    // The event feed shows what happened, and its type filter narrows it the way the gateway's `types` does.
    await timed('event feed filter', async () => {
      await page.locator('#events li[data-type="checkpoint.restored"]').waitFor();
      await page.fill('#events-filter', 'checkpoint.*');
      await expect
        .poll(
          async () => {
            const types = await page
              .locator('#events li[data-type]')
              .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-type')));
            return types.length > 0 && types.every((type) => type?.startsWith('checkpoint.'));
          },
          { timeout: WAIT_MS },
        )
        .toBe(true);
      await page.locator('#events li[data-type="checkpoint.created"]').first().waitFor();
      await page.fill('#events-filter', '');
      await page.locator('#events li[data-type="checkpoint.restored"]').first().waitFor();
    });

    // A reload needs no token in the address: the session cookie serves the page and opens its connection.
    await timed('reload without the token', async () => {
      await page.reload();
      await page.locator('body[data-ready="true"]').waitFor();
    });
    await page.locator('#goals li', { hasText: goalTitle }).waitFor();
    // The conversation comes back from the log (conversation.list): its bubbles carry the log's seq.
    await page.locator('.chat-reply[data-seq]').first().waitFor();
    await page.locator('.chat-message[data-seq]', { hasText: 'Hello Vigil' }).first().waitFor();
    await page.locator('#affect-chart canvas').first().waitFor();
    await page.locator('#events li[data-type]').first().waitFor();

    await timed('screenshot', () => page.screenshot({ path: join(ARTIFACTS, 'dashboard.png') }));
    expect(existsSync(join(ARTIFACTS, 'dashboard.png'))).toBe(true);

    // A browser without the token or the cookie gets the explanation page, and none of the files.
    const stranger = await browser.newContext();
    const refused = await stranger.newPage();
    const response = await refused.goto(`${url}/`);
    expect(response?.status()).toBe(401);
    expect(await refused.locator('h1').textContent()).toBe('Sign in');
    expect((await refused.goto(`${url}/dashboard/dashboard-app.js`))?.status()).toBe(401);
    await stranger.close();
    await context.close();

    // An unanswered turn is marked with its code. The offline thinker always answers, so the ending is put into the
    // live feed between a real daemon and the page: the page's own socket, relayed, plus one agent.unanswered.
    await timed('an unanswered turn', async () => {
      const relayed = await browser.newContext();
      let feedId: string | undefined;
      let subscribeId: unknown;
      let inject: ((frame: object) => void) | undefined;
      await relayed.routeWebSocket(/\/rpc/, (pageSide) => {
        const serverSide = pageSide.connectToServer();
        pageSide.onMessage((message) => {
          const frame = JSON.parse(String(message)) as { method?: string; id?: unknown; params?: { types?: string[] } };
          // The page's event feed, not its feed of reply pieces (agent.reply_delta), which it opens beside it.
          const pieces = frame.params?.types?.includes('agent.reply_delta') === true;
          if (frame.method === 'events.subscribe' && !pieces) subscribeId = frame.id;
          serverSide.send(message);
        });
        serverSide.onMessage((message) => {
          const frame = JSON.parse(String(message)) as { id?: unknown; result?: { subscription?: string } };
          if (subscribeId !== undefined && frame.id === subscribeId) feedId = frame.result?.subscription;
          pageSide.send(message);
        });
        inject = (frame) => pageSide.send(JSON.stringify(frame));
      });
      const watched = await relayed.newPage();
      watched.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      await watched.goto(`${url}/?token=${TOKEN}`);
      await watched.locator('body[data-ready="true"]').waitFor();
      await expect.poll(() => feedId, { timeout: WAIT_MS }).toBeDefined();
      const event = {
        seq: 0,
        type: 'agent.unanswered',
        at: new Date().toISOString(),
        beat: 0,
        turnId: 't-e2e-unanswered',
        code: 'TURN_CANCELLED',
        reason: 'A restore went back to before this message.',
      };
      inject!({ jsonrpc: '2.0', method: 'events.event', params: { subscription: feedId, event } });
      const bubble = watched.locator('.chat-unanswered[data-turn="t-e2e-unanswered"]');
      await bubble.waitFor();
      expect(await bubble.locator('.chat-code').textContent()).toBe('unanswered · TURN_CANCELLED');
      expect(await bubble.locator('.chat-text').textContent()).toBe(event.reason);
      expect(await watched.locator('#conv-unread').textContent()).toContain('1 unanswered');
      await relayed.close();
    });

    expect(problems).toEqual([]);

    // Stop the daemon cleanly, then: not one log line, nor stderr, carries the token.
    daemon.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    const logged = daemon.lines.map((line) => JSON.stringify(line)).join('\n') + daemon.stderr();
    expect(daemon.lines.length).toBeGreaterThan(3);
    expect(logged).not.toContain(TOKEN);
  });
});
