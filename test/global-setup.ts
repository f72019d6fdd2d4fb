/** Vitest global setup: brings dist/ up to date first (and on every watch-mode rerun), so tests that spawn `bin/vigil.js` run the current code. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

const BUILD = fileURLToPath(new URL('../scripts/build.mjs', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** The incremental build (well under a second when nothing changed). */
async function build(): Promise<void> {
  const output = await new Promise<string | null>((resolve) => {
    execFile(process.execPath, [BUILD], { timeout: 300_000 }, (err, stdout, stderr) =>
      resolve(err === null ? null : `${stdout}${stderr}`),
    );
  });
  if (output === null) return;
  // tsc still emits when it finds type errors: the tests can run on that code, and `npm run typecheck` reports them.
  if (!existsSync(CLI)) throw new Error(`the build before the tests produced no dist/cli.js:\n${output}`);
  process.stderr.write(`warning: npm run build reported errors; the tests run on what it emitted:\n${output}\n`);
}

export default async function setup(project: TestProject): Promise<void> {
  await build();
  project.onTestsRerun(build);
}
