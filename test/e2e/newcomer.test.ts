/**
 * Issue 50's newcomer: the README's first five minutes and every hint the daemon prints, run as typed, through
 * `npm start` and `npx vigil` in this checkout (scripts/newcomer.ts; `.ci/run` is itself a fresh clone). A hint that
 * names a command that does not exist, or does not work where the daemon was started, fails here.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hintedCommands, readmeCommands, runNewcomer } from '../../scripts/newcomer.js';
import { ROOT } from './run-process.js';

describe('a newcomer’s first five minutes', () => {
  // A run given up (the test's timeout) would leave its daemon running: its process group is ended here.
  let started: number | undefined;
  afterAll(() => {
    try {
      if (started !== undefined) process.kill(-started, 'SIGKILL');
    } catch {
      // Already gone.
    }
  });

  it('finds the commands in the daemon’s line and the README', () => {
    const line =
      'Vigil is listening at http://127.0.0.1:7420/. Dashboard: npx vigil dashboard (prints a one-time sign-in link). ' +
      'Talk to it: npx vigil send "hello" --data-dir /tmp/a.b. A read-only token: npx vigil tokens create --scope read. ' +
      'The gateway token is in data/token.';
    expect(hintedCommands(line)).toEqual([
      'npx vigil dashboard',
      'npx vigil send "hello" --data-dir /tmp/a.b',
      'npx vigil tokens create --scope read',
    ]);
    expect(
      readmeCommands('## The first five minutes\n\n    npx vigil send "hi"   # a comment\n    ls\n\n## Next\n'),
    ).toEqual(['npx vigil send "hi"']);
  });

  it('runs every command the README and the daemon’s start line name, as printed, and each works', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'vigil-newcomer-'));
    try {
      const steps = await runNewcomer({ checkout: ROOT, dataDir, onStart: (group) => (started = group) });
      const failed = steps.filter((step) => !step.ok).map((step) => `${step.command}: ${step.detail}`);
      expect(failed).toEqual([]);
      const commands = steps.map((step) => step.command);
      expect(commands).toEqual(
        expect.arrayContaining([
          'npm start',
          `npx vigil dashboard --data-dir ${dataDir}`,
          `npx vigil send "hello" --data-dir ${dataDir}`,
          `npx vigil events --data-dir ${dataDir}`,
          'Ctrl-C',
        ]),
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
