/** The dashboard's long-term memory search box in headless Chromium against a real daemon: search, see, forget. */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';
import { ROOT } from './run-process.js';

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
const ARTIFACTS = join(ROOT, 'test-artifacts');
const TOKEN = 'dashboard-memory-token-8c1d2e3f4a';
const WAIT_MS = 15_000;

describe('the dashboard long-term memory search in Chromium', () => {
  let dataDir: string;
  let daemon: DaemonProcess;
  let url: string;
  let browser: Browser;
  let rpc: VigilClient;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is not installed (looked for ${CHROMIUM}); .ci/run installs Debian's chromium, or set VIGIL_CHROMIUM.`,
      );
    }
    await mkdir(ARTIFACTS, { recursive: true });
    dataDir = await mkdtemp(join(tmpdir(), 'vigil-dashboard-memory-'));
    daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], { ...FAST_ENV, VIGIL_TOKEN: TOKEN });
    url = String((await daemon.waitFor((line) => line.msg === 'gateway listening', 20_000, 'gateway listening')).url);
    rpc = await connect({ url, token: TOKEN, reconnect: false });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await rpc?.close();
    if (daemon !== undefined && daemon.proc.exitCode === null) {
      daemon.kill('SIGKILL');
      await daemon.exited;
    }
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  it('finds a remembered fact by a search typed in the box, and forgets it with its button', async () => {
    // The offline thinker keeps what it is asked to remember in long-term memory at once.
    await rpc.agent.send({ text: 'Please remember that the spare key is under the blue flowerpot', from: 'e2e' });
    await expect
      .poll(() => rpc.memory.search({ query: 'spare key' }), { timeout: WAIT_MS, interval: 50 })
      .toHaveLength(1);

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(WAIT_MS);
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    await page.goto(`${url}/?token=${TOKEN}`);
    await page.locator('body[data-ready="true"]').waitFor();

    await page.fill('#ltm-query', 'flowerpt');
    await page.click('#ltm-form button[type="submit"]');
    const hit = page.locator('#ltm-results li', { hasText: 'the spare key is under the blue flowerpot' });
    await hit.waitFor();
    await expect.poll(() => hit.locator('.muted').first().textContent()).toBe('conversation');
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-memory.png') });

    await hit.locator('button', { hasText: 'Forget' }).click();
    await page.locator('#ltm-results li.empty', { hasText: 'No long-term memory matches' }).waitFor();
    expect(await rpc.memory.search({ query: 'spare key' })).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
