/**
 * The dashboard's tasks panel end to end: Debian's Chromium, driven by playwright-core, against a real daemon child
 * process with the stdio MCP fixture — a finished task with its tools and spend, a running one cancelled by its button.
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
const TOKEN = 'dashboard-tasks-e2e-token-5c2a91';
/** Bounds every wait on the page: generous for a loaded 2-core CI machine, never a sleep. */
const WAIT_MS = 15_000;

// Never skipped: without a browser the panel is untested, so a missing Chromium fails here (.ci/run installs it).
describe('the dashboard tasks panel in Chromium against a real daemon with an MCP server', () => {
  let dataDir: string;
  let daemon: DaemonProcess;
  let url: string;
  let browser: Browser;
  let rpc: VigilClient;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed (looked for ${CHROMIUM}); run .ci/run or set VIGIL_CHROMIUM.`);
    await mkdir(ARTIFACTS, { recursive: true });
    dataDir = await mkdtemp(join(tmpdir(), 'vigil-dashboard-tasks-'));
    const config = join(dataDir, 'mcp.json');
    writeFileSync(config, JSON.stringify({
      mcpServers: { fixture: { command: process.execPath, args: ['--import', 'tsx', STDIO_FIXTURE], cwd: FIXTURE_ROOT } },
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

  it('lists a finished task with its tools and spend, and cancels a running one by its button; its turn is told', async () => {
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
    await page.locator('#tasks tr.empty').waitFor();

    // A task that calls one tool and finishes: listed as done, with its tool and its spend against its cap.
    const { turnId: done } = await rpc.agent.send({ text: '/task tools=fixture__echo\nSay hello.\n/tool fixture__echo {"text": "hello from a task"}' });
    const finished = page.locator(`#tasks tr[data-turn="${done}"][data-status="done"]`);
    await finished.waitFor();
    expect(await finished.locator('.task-tools').textContent()).toBe('mcp__fixture__echo');
    expect(await finished.locator('.task-spend').textContent()).toMatch(/^\$0\.\d+ \/ \$0\.50$/);
    expect(await finished.locator('button.task-cancel').count()).toBe(0);

    // A task whose tool call hangs: running, with a Cancel button that stops it.
    const { turnId: hung } = await rpc.agent.send({ text: '/task tools=fixture__hang\n/tool fixture__hang' });
    const running = page.locator(`#tasks tr[data-turn="${hung}"][data-status="running"]`);
    await running.waitFor();
    expect(await page.locator('#tasks-count').textContent()).toContain('1 open');
    await page.locator('.card-tasks').screenshot({ path: join(ARTIFACTS, 'dashboard-tasks.png') });
    await running.locator('button.task-cancel').click();
    await page.locator(`#tasks tr[data-turn="${hung}"][data-status="cancelled"]`).waitFor();
    const told = page.locator(`.chat-reply[data-turn="${hung}"]`);
    await told.waitFor();
    expect(await told.textContent()).toMatch(/cancelled/);

    expect((await rpc.tasks.list()).map((task) => task.status).sort()).toEqual(['cancelled', 'done']);
    expect(problems).toEqual([]);
    await context.close();
  });
});
