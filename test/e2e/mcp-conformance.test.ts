/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, server mode) against a real daemon's `/mcp`.
 * The suite cannot send a token, so a local reverse proxy adds it and passes Host and Origin through untouched; the
 * daemon admits the proxy's name as any deployment behind a proxy would, by VIGIL_ALLOWED_HOSTS / _ORIGINS. Each
 * scenario's `checks.json` is read: one FAILURE (or no SUCCESS at all) fails the test. docs/testing.md lists the
 * scenarios left out and why.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBearerProxy, type BearerProxy } from './bearer-proxy.js';
import { startDaemon, type DaemonProcess } from './daemon-process.js';
import { runProcess } from './run-process.js';

/** The scenarios Vigil's MCP server is judged by (the others need the suite's own test tools, resources or prompts). */
const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'tools-call-error',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
] as const;

const SUITE = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/dist/index.js');
const TOKEN = 'conformance-e2e-token-0123456789ab';
const dir = mkdtempSync(join(tmpdir(), 'vigil-conformance-'));

/** One check as the suite writes it to `checks.json`. */
interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

let daemon: DaemonProcess;
let proxy: BearerProxy;

beforeAll(async () => {
  // The proxy first: its port is the name the daemon must admit.
  proxy = await startBearerProxy(TOKEN);
  daemon = startDaemon(['run', '--data-dir', join(dir, 'data'), '--port', '0'], {
    VIGIL_TOKEN: TOKEN,
    VIGIL_ALLOWED_HOSTS: `127.0.0.1:${proxy.port}`,
    VIGIL_ALLOWED_ORIGINS: proxy.url,
  });
  const listening = await daemon.waitFor((l) => l.msg === 'gateway listening', 20_000, 'gateway listening');
  proxy.target = { host: '127.0.0.1', port: Number(new URL(String(listening['url'])).port) };
});

afterAll(async () => {
  await proxy?.close();
  daemon?.kill('SIGTERM');
  await daemon?.exited;
  rmSync(dir, { recursive: true, force: true });
});

describe('the MCP conformance suite against /mcp', () => {
  // Each is a Node process loading the suite and running its client: seconds, more on a loaded CI machine.
  it.each(SCENARIOS)(
    'passes %s',
    async (scenario) => {
      const out = join(dir, scenario);
      const run = await runProcess(
        process.execPath,
        [SUITE, 'server', '--url', `${proxy.url}/mcp`, '--scenario', scenario, '--output-dir', out],
        { timeoutMs: 50_000 },
      );
      // The suite writes one `server-<scenario>-<timestamp>/checks.json` per run.
      const [resultDir] = existsSync(out) ? readdirSync(out) : [];
      expect(resultDir, `no result directory; stdout: ${run.stdout}; stderr: ${run.stderr}`).toBeDefined();
      const checks = JSON.parse(readFileSync(join(out, resultDir!, 'checks.json'), 'utf8')) as Check[];
      const failed = checks.filter((check) => check.status === 'FAILURE');
      expect(failed.map((check) => `${check.id}: ${check.errorMessage ?? ''}`)).toEqual([]);
      expect(checks.some((check) => check.status === 'SUCCESS')).toBe(true);
      expect(run.code, run.stdout).toBe(0);
    },
    60_000,
  );
});
