/**
 * The set-up both conformance client test files share: each scenario a test of its own, run by the suite in a scratch
 * directory made once per file, and judged the same way (no check missed, at least one SUCCESS, the suite's exit 0),
 * plus what a file judges besides (`also`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runClientScenario, type ScenarioRun } from './run-client-scenario.js';

/** Each starts the suite, the driver and a daemon: several seconds, more on a loaded machine. */
const SCENARIO_TIMEOUT_MS = 110_000;

/** Describes `title` with one test per scenario of `scenarios`. */
export function describeClientScenarios(
  title: string,
  scenarios: readonly string[],
  also: (scenario: string, run: ScenarioRun) => void = () => undefined,
): void {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-conformance-client-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  describe(title, () => {
    it.each(scenarios)(
      'passes %s',
      async (scenario) => {
        const run = await runClientScenario(scenario, join(dir, scenario.replaceAll('/', '_')));
        expect(run.missed, run.driverOutput).toEqual([]);
        expect(run.checks.some((check) => check.status === 'SUCCESS')).toBe(true);
        // The suite exits 0 for a scenario that allows the client's error (a file's `also` judges the rest).
        expect(run.code, run.driverOutput).toBe(0);
        also(scenario, run);
      },
      SCENARIO_TIMEOUT_MS,
    );
  });
}
