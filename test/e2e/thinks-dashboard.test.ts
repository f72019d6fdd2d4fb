/**
 * The dashboard's thinks panel in headless Chromium against a real daemon child process whose Anthropic thinker talks
 * to the fake Messages API: recent thinks listed with cost and cache ratio, one opened to its calls and sections.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import {
  message,
  pendingTurnIds,
  startFakeMessagesApi,
  text,
  toolUse,
  type FakeMessagesApi,
  type RecordedRequest,
} from '../fixtures/fake-messages-api.js';
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
const TOKEN = 'thinks-dashboard-token-8c1d2e';
const WAIT_MS = 15_000;

/** Every think: a reply to each pending turn, then the end of the turn (the fake counts the tokens and the cache truthfully). */
function answer(request: RecordedRequest) {
  const last = request.body?.messages?.at(-1);
  const afterTools =
    Array.isArray(last?.content) && last.content.some((b: { type: string }) => b.type === 'tool_result');
  if (afterTools) return message([text('done')]);
  const turns = pendingTurnIds(request);
  if (turns.length === 0) return message([text('nothing to do')]);
  return message(turns.map((turnId) => toolUse('reply', { turnId, text: `Answered ${turnId}.` })));
}

// Never skipped: without a browser the dashboard is untested, so a missing Chromium fails here (.ci/run installs it).
describe('the thinks panel in Chromium against a real daemon', () => {
  let dataDir: string;
  let daemon: DaemonProcess;
  let api: FakeMessagesApi;
  let url: string;
  let browser: Browser;
  let rpc: VigilClient;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `Chromium is not installed (looked for ${CHROMIUM}); .ci/run installs it, or set VIGIL_CHROMIUM.`,
      );
    await mkdir(ARTIFACTS, { recursive: true });
    api = await startFakeMessagesApi();
    for (let i = 0; i < 200; i += 1) api.enqueue({ kind: 'respond', respond: answer });
    dataDir = await mkdtemp(join(tmpdir(), 'vigil-thinks-e2e-'));
    daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0', '--thinker', 'anthropic'], {
      ...FAST_ENV,
      VIGIL_BEAT_MS: '50',
      VIGIL_BEAT_MIN_MS: '25',
      VIGIL_BEAT_MAX_MS: '100',
      VIGIL_DEBRIEF_AFTER_S: '3600',
      VIGIL_TOKEN: TOKEN,
      ANTHROPIC_API_KEY: 'sk-test',
      ANTHROPIC_BASE_URL: api.url,
    });
    const listening = await daemon.waitFor((line) => line.msg === 'gateway listening', 20_000, 'gateway listening');
    url = String(listening.url);
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
    await api?.close();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  it('lists recent thinks with cost and cache ratio, and opens one to its calls and prompt sections', async () => {
    const problems: string[] = [];
    const context = await browser.newContext({ viewport: { width: 1280, height: 1100 } });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (entry) => {
      if (entry.type() === 'error') problems.push(`console error: ${entry.text()}`);
    });
    await page.goto(`${url}/?token=${TOKEN}`);
    await page.locator('body[data-ready="true"]').waitFor();

    // A message thinks; its trace arrives as think.traced and the panel lists it without a reload.
    const { turnId } = await rpc.agent.send({ text: 'What is the secret word?' });
    await expect
      .poll(async () => (await rpc.thinks.list()).some((t) => t.turnIds.includes(turnId)), { timeout: WAIT_MS })
      .toBe(true);
    const think = (await rpc.thinks.list()).find((t) => t.turnIds.includes(turnId))!;
    const row = page.locator(`#thinks tr[data-id="${think.id}"]`);
    await row.waitFor();
    // Cache ratio: the share of the prompt's tokens read from the cache, as the fake counted them.
    const prompt = think.inputTokens + think.cacheReadTokens + think.cacheWriteTokens;
    expect(prompt).toBeGreaterThan(0);
    expect(await row.locator('td[data-field="cache"]').textContent()).toBe(
      `${Math.round((think.cacheReadTokens / prompt) * 100)}%`,
    );
    const sum = (field: 'inputTokens' | 'cacheReadTokens' | 'outputTokens') =>
      think.calls.reduce((total, call) => total + call[field], 0);
    expect(think).toMatchObject({
      inputTokens: sum('inputTokens'),
      cacheReadTokens: sum('cacheReadTokens'),
      outputTokens: sum('outputTokens'),
    });
    expect(await row.locator('td[data-field="cost"]').textContent()).toBe(
      `$${think.costUsd.toFixed(think.costUsd < 0.01 ? 6 : 4)}`,
    );
    expect(await row.locator('td').nth(1).textContent()).toBe('user_message');

    // Opening it shows each model call and the prompt's sections with their token counts (no text: content is off).
    await row.click();
    await page.locator('#think-dialog[open]').waitFor();
    expect(await page.locator('#think-title').textContent()).toBe(`Think ${think.id}`);
    const calls = page.locator('#think-calls tr');
    expect(await calls.count()).toBe(2);
    // Each call's tokens as its trace records them (the fake's own counts): input, output, cache read, cache write.
    const full = await rpc.thinks.get({ id: think.id });
    expect(full.calls).toHaveLength(2);
    for (const [i, call] of full.calls.entries()) {
      const cells = await calls.nth(i).locator('td').allTextContents();
      expect(cells.slice(1, 5)).toEqual(
        [call.inputTokens, call.outputTokens, call.cacheReadTokens, call.cacheWriteTokens].map((n) =>
          n.toLocaleString('en-US'),
        ),
      );
    }
    expect(full.calls[0]!.inputTokens).toBeGreaterThan(0);
    expect(await calls.nth(0).locator('td').last().textContent()).toBe('tool_use');
    expect(await calls.nth(1).locator('td').last().textContent()).toBe('end_turn');
    expect(await page.locator('#think-tools li').first().textContent()).toContain('reply');
    const sections = page.locator('#think-sections li');
    expect(await sections.count()).toBe(full.sections.length);
    expect(await sections.evaluateAll((items) => items.map((item) => item.getAttribute('data-section')))).toEqual(
      full.sections.map((s) => s.name),
    );
    const pending = full.sections.find((s) => s.name === 'pending_messages')!;
    expect(await page.locator('#think-sections li[data-section="pending_messages"] .num').textContent()).toBe(
      pending.tokens.toLocaleString('en-US'),
    );
    expect(await page.locator('#think-sections details').count()).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-thinks.png'), fullPage: true });
    await page.click('#think-close');
    await page.locator('#think-dialog[open]').waitFor({ state: 'detached' });
    expect(problems).toEqual([]);
    await context.close();
  });
});
