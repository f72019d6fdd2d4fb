/** Runs one client scenario of the MCP conformance suite with the Vigil driver as the client, and reads what it found. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { runProcess } from '../run-process.js';

const SUITE = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/dist/index.js');
// The suite splits the command on spaces and runs it in a shell: the checkout's path must not hold a space.
const DRIVER = `${process.execPath} --import tsx test/e2e/conformance/vigil-client-driver.ts`;

/** One check as the suite writes it to `checks.json`. */
export interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  description?: string;
  errorMessage?: string;
}

/** What one run left: the suite's exit code, its checks, and the driver's own log (its stdout). */
export interface ScenarioRun {
  code: number | null;
  checks: Check[];
  driverOutput: string;
  /** The checks that fail the scenario: FAILURE, and WARNING (a SHOULD missed; the suite's verdict counts it too). */
  missed: string[];
}

/** Runs `scenario` with its results under `outDir`. */
export async function runClientScenario(scenario: string, outDir: string): Promise<ScenarioRun> {
  const run = await runProcess(
    process.execPath,
    [SUITE, 'client', '--command', DRIVER, '--scenario', scenario, '--timeout', '90000', '--output-dir', outDir],
    { timeoutMs: 100_000 },
  );
  // The suite writes one `<scenario>-<timestamp>/` per run (a scenario's `/` makes it a subdirectory).
  const parts = scenario.split('/');
  const base = join(outDir, ...parts.slice(0, -1));
  const last = parts.at(-1)!;
  const resultDir = existsSync(base) ? readdirSync(base).find((name) => name.startsWith(`${last}-`)) : undefined;
  if (resultDir === undefined)
    throw new Error(`the suite left no result directory; stdout: ${run.stdout}; stderr: ${run.stderr}`);
  const results = join(base, resultDir);
  const checks = JSON.parse(readFileSync(join(results, 'checks.json'), 'utf8')) as Check[];
  const missed = checks
    .filter((check) => check.status === 'FAILURE' || check.status === 'WARNING')
    .map((check) => `${check.status} ${check.id}: ${check.errorMessage ?? check.description ?? ''}`);
  return { code: run.code, checks, driverOutput: readFileSync(join(results, 'stdout.txt'), 'utf8'), missed };
}
