/**
 * The dashboard's tools panel end to end: Debian's Chromium, driven by playwright-core, against a real daemon child
 * process with the stdio MCP fixture — the tools listed, waiting calls shown live, approved and denied with the buttons.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import { ROOT as FIXTURE_ROOT, STDIO_FIXTURE } from '../subsystems/tools/mcp-hub.fixture.js';
import { startDaemon, type DaemonProcess } from './daemon-process.js';
import { ROOT } from './run-process.js';

/** Debian's chromium (`apt-get install chromium`); VIGIL_CHROMIUM points elsewhere. */
const CHROMIUM = process.env['VIGIL_CHROMIUM'] ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = join(ROOT, 'test-artifacts');
const TOKEN = 'dashboard-tools-e2e-token-8d1e4b';
/** Bounds every wait on the page: generous for a loaded 2-core CI machine, never a sleep. */
const WAIT_MS = 15_000;

// Never skipped: without a browser the panel is untested, so a missing Chromium fails here (.ci/run installs it).
describe('the dashboard tools panel in Chromium against a real daemon with an MCP server', () => {
  let dataDir: string;
  let daemon: DaemonProcess;
  let url: string;
  let browser: Browser;
  let rpc: VigilClient;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed (looked for ${CHROMIUM}); run .ci/run or set VIGIL_CHROMIUM.`);
    await mkdir(ARTIFACTS, { recursive: true });
    dataDir = await mkdtemp(join(tmpdir(), 'vigil-dashboard-tools-'));
    const config = join(dataDir, 'mcp.json');
    writeFileSync(config, JSON.stringify({
      mcpServers: { fixture: { command: process.execPath, args: ['--import', 'tsx', STDIO_FIXTURE], cwd: FIXTURE_ROOT, requireApproval: ['echo', 'add'] } },
    }));
    daemon = startDaemon(['run', '--data-dir', join(dataDir, 'data'), '--port', '0'], {
      VIGIL_BEAT_MS: '50',
      VIGIL_BEAT_MIN_MS: '25',
      VIGIL_BEAT_MAX_MS: '100',
      VIGIL_CHECKPOINT_INTERVAL_BEATS: '2000',
      VIGIL_TOKEN: TOKEN,
      VIGIL_MCP_CONFIG: config,
      VIGIL_LOG_LEVEL: 'info',
    });
    const listening = await daemon.waitFor((line) => line.msg === 'gateway listening', 20_000, 'gateway listening');
    await daemon.waitFor((line) => line.msg === 'mcp.server_up', 20_000, 'mcp.server_up');
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
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  it('lists the tools, shows a waiting call as it is requested, and approves one and denies another (with a reason) by its buttons', async () => {
    const problems: string[] = [];
    const context = await browser.newContext({ viewport: { width: 1280, height: 1100 } });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    await page.goto(`${url}/?token=${TOKEN}`);
    await page.locator('body[data-ready="true"]').waitFor();

    // The tools, with the ones under requireApproval marked and every server up.
    const echoTool = page.locator('#tools li[data-name="mcp__fixture__echo"]');
    await echoTool.waitFor();
    expect(await echoTool.getAttribute('data-available')).toBe('true');
    expect(await echoTool.locator('.pill').textContent()).toBe('approval');
    expect(await page.locator('#tools li[data-name="mcp__fixture__count"] .pill').count()).toBe(0);
    await page.locator('#tools-pending .empty').waitFor();

    // A call waits: it appears live (tool.approval_requested), with its arguments.
    const { turnId } = await rpc.agent.send({ text: '/tool fixture__echo {"text": "from the dashboard"}' });
    const first = page.locator(`#tools-pending li[data-turn="${turnId}"]`);
    await first.waitFor();
    expect(await first.locator('.tool-name').textContent()).toBe('mcp__fixture__echo');
    expect(JSON.parse((await first.locator('.tool-args').textContent()) ?? '')).toEqual({ text: 'from the dashboard' });
    expect(await page.locator('#tools-count').textContent()).toContain('1 waiting');
    await page.locator('.card-tools').screenshot({ path: join(ARTIFACTS, 'dashboard-tools.png') });

    await first.locator('button.tool-approve').click();
    await first.waitFor({ state: 'detached' });
    const approvedReply = page.locator(`.chat-reply[data-turn="${turnId}"]`);
    await approvedReply.waitFor();
    expect(await approvedReply.textContent()).toMatch(/approved by the operator and returned:\s*from the dashboard/);

    // Another, denied with a reason typed beside it: the agent's answer carries the reason.
    const { turnId: second } = await rpc.agent.send({ text: '/tool fixture__add {"a": 2, "b": 2}' });
    const row = page.locator(`#tools-pending li[data-turn="${second}"]`);
    await row.waitFor();
    await row.locator('input.tool-reason').fill('arithmetic is off limits today');
    await row.locator('button.tool-deny').click();
    await row.waitFor({ state: 'detached' });
    const deniedReply = page.locator(`.chat-reply[data-turn="${second}"]`);
    await deniedReply.waitFor();
    expect(await deniedReply.textContent()).toMatch(/denied by the operator \(the reason given: arithmetic is off limits today\)/);

    expect(await rpc.tools.pending()).toEqual([]);
    const decided = await rpc.events.history({ types: ['tool.approval_decided'] });
    expect(decided.map((e) => (e as { approved?: boolean }).approved)).toEqual([true, false]);
    await page.locator('#tools-pending .empty').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });
});
