/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, client mode) with Vigil as the client. For
 * each scenario the suite starts its server and runs test/e2e/conformance/vigil-client-driver.ts, which starts a real
 * daemon configured with that server, signs in where the server asks (following the authorization URL as the
 * operator's browser would), and calls a tool through Vigil's tool caller. Each scenario's `checks.json` is read: a
 * FAILURE or a WARNING (a SHOULD the client missed), no SUCCESS at all, or a non-zero exit of the suite fails the test.
 * docs/testing.md lists every client scenario with its state.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runProcess } from './run-process.js';

/** The scenarios Vigil as a client is judged by. */
const SCENARIOS = ['initialize', 'tools_call', 'sse-retry'] as const;

const SUITE = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/dist/index.js');
// The suite splits the command on spaces and runs it in a shell: the checkout's path must not hold a space.
const DRIVER = `${process.execPath} --import tsx test/e2e/conformance/vigil-client-driver.ts`;
const dir = mkdtempSync(join(tmpdir(), 'vigil-conformance-client-'));

/** One check as the suite writes it to `checks.json`. */
interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  description?: string;
  errorMessage?: string;
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the MCP conformance suite with Vigil as the client', () => {
  // Each starts the suite, the driver and a daemon: several seconds, more on a loaded machine.
  it.each(SCENARIOS)(
    'passes %s',
    async (scenario) => {
      const out = join(dir, scenario.replaceAll('/', '_'));
      const run = await runProcess(
        process.execPath,
        [SUITE, 'client', '--command', DRIVER, '--scenario', scenario, '--timeout', '70000', '--output-dir', out],
        { timeoutMs: 80_000 },
      );
      // The suite writes one `<scenario>-<timestamp>/` per run (a scenario's `/` makes it a subdirectory).
      const base = join(out, ...scenario.split('/').slice(0, -1));
      const last = scenario.split('/').at(-1)!;
      const resultDir = existsSync(base) ? readdirSync(base).find((name) => name.startsWith(`${last}-`)) : undefined;
      expect(resultDir, `no result directory; stdout: ${run.stdout}; stderr: ${run.stderr}`).toBeDefined();
      const results = join(base, resultDir!);
      const checks = JSON.parse(readFileSync(join(results, 'checks.json'), 'utf8')) as Check[];
      const driverOutput = readFileSync(join(results, 'stdout.txt'), 'utf8');
      const missed = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
      expect(
        missed.map((check) => `${check.status} ${check.id}: ${check.errorMessage ?? check.description ?? ''}`),
        driverOutput,
      ).toEqual([]);
      expect(checks.some((check) => check.status === 'SUCCESS')).toBe(true);
      expect(run.code, `${run.stderr}\n${driverOutput}`).toBe(0);
    },
    90_000,
  );
});
