/**
 * The shared set-up of the dashboard's Chromium tests with an MCP server: Debian's Chromium through playwright-core,
 * a real `vigil run` child with fast beats and the stdio MCP fixture, and a page that records every error it shows.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import type { McpStdioServer } from '../../src/protocol/mcp-config.schema.js';
import { ROOT as FIXTURE_ROOT, STDIO_FIXTURE } from '../subsystems/tools/mcp-hub.fixture.js';
import { startDaemon, type DaemonProcess } from './daemon-process.js';
import { ROOT } from './run-process.js';

/** Debian's chromium (`apt-get install chromium`); VIGIL_CHROMIUM points elsewhere. */
export const CHROMIUM = process.env['VIGIL_CHROMIUM'] ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Where the tests leave their screenshots. */
export const ARTIFACTS = join(ROOT, 'test-artifacts');
/** Bounds every wait on the page: generous for a loaded 2-core CI machine, never a sleep. */
export const WAIT_MS = 15_000;

/** A running daemon with the MCP fixture, a client of it, and a browser to open its dashboard in. */
export interface DashboardRig {
  url: string;
  rpc: VigilClient;
  browser: Browser;
  /**
   * Opens the dashboard with the token (the daemon's, or `withToken`) and waits until it is ready; `problems` collects
   * page and console errors.
   */
  open(withToken?: string): Promise<{ context: BrowserContext; page: Page; problems: string[] }>;
  close(): Promise<void>;
}

/**
 * Starts it all: a daemon with the stdio MCP fixture (and `otherServers`, further `mcpServers` entries). Never skipped:
 * without a browser the panel is untested, so a missing Chromium fails here
 * (`.ci/run` installs it).
 */
export async function startDashboardRig(
  name: string,
  token: string,
  fixture: Partial<McpStdioServer> = {},
  otherServers: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Promise<DashboardRig> {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium is not installed (looked for ${CHROMIUM}); run .ci/run or set VIGIL_CHROMIUM.`);
  await mkdir(ARTIFACTS, { recursive: true });
  const dataDir = await mkdtemp(join(tmpdir(), `vigil-${name}-`));
  const config = join(dataDir, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        fixture: { command: process.execPath, args: ['--import', 'tsx', STDIO_FIXTURE], cwd: FIXTURE_ROOT, ...fixture },
        ...otherServers,
      },
    }),
  );
  const daemon: DaemonProcess = startDaemon(['run', '--data-dir', join(dataDir, 'data'), '--port', '0'], {
    VIGIL_BEAT_MS: '50',
    VIGIL_BEAT_MIN_MS: '25',
    VIGIL_BEAT_MAX_MS: '100',
    VIGIL_CHECKPOINT_INTERVAL_BEATS: '2000',
    VIGIL_TOKEN: token,
    VIGIL_MCP_CONFIG: config,
    VIGIL_LOG_LEVEL: 'info',
    ...env,
  });
  const listening = await daemon.waitFor((line) => line.msg === 'gateway listening', 20_000, 'gateway listening');
  await daemon.waitFor((line) => line.msg === 'mcp.server_up', 20_000, 'mcp.server_up');
  const url = String(listening.url);
  const rpc = await connect({ url, token, reconnect: false });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  return {
    url,
    rpc,
    browser,
    async open(withToken = token) {
      const problems: string[] = [];
      const context = await browser.newContext({ viewport: { width: 1280, height: 1100 } });
      const page = await context.newPage();
      page.setDefaultTimeout(WAIT_MS);
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
      });
      await page.goto(`${url}/?token=${withToken}`);
      await page.locator('body[data-ready="true"]').waitFor();
      return { context, page, problems };
    },
    async close() {
      await browser.close();
      await rpc.close();
      if (daemon.proc.exitCode === null) {
        daemon.kill('SIGKILL');
        await daemon.exited;
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
