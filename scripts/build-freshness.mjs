// Whether dist/ is up to date with what it is built from, so `npm start` (`build.mjs --if-changed`) builds only after a
// change: a stat walk of the inputs against the time the last successful build started, which that build recorded.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** What a build reads, from the root: the sources (the dashboard's among them), the manifests and the build's own code. */
export const BUILD_INPUTS = [
  'src',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.mjs',
  'scripts/build-freshness.mjs',
  'scripts/browser-bundle.mjs',
  'scripts/daemon-bundle.mjs',
];

/** What a build leaves, from the root: one missing (dist/ removed) means a build is due whatever the times say. */
export const BUILD_OUTPUTS = [
  'dist/cli.js',
  'dist/index.js',
  'dist/gateway/dashboard/index.html',
  'dist/gateway/dashboard/vigil-client.js',
  'dist/bundle/cli.js',
];

/**
 * Where a successful build records when it started (epoch ms, in the file system's time). Not in dist/, which is published; a build that fails or is
 * interrupted leaves none (it is removed when a build starts), so the next start builds again.
 */
export const BUILD_STAMP = 'node_modules/.cache/vigil/build-started-at';

/**
 * The newest change among `inputs` (under `root`): its time (epoch ms) and path. Directories count too: adding,
 * removing or renaming a file changes its directory's time even when the files left are older than the last build.
 * @param {string} root
 * @param {readonly string[]} [inputs]
 * @returns {{ at: number, path: string } | undefined}
 */
export function newestInput(root, inputs = BUILD_INPUTS) {
  /** @type {{ at: number, path: string } | undefined} */
  let newest;
  /** @param {string} path */
  const visit = (path) => {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return; // an input a checkout does not have (no lockfile): nothing to compare
    }
    if (newest === undefined || stat.mtimeMs > newest.at) newest = { at: stat.mtimeMs, path: relative(root, path) };
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  for (const input of inputs) visit(join(root, input));
  return newest;
}

/**
 * Whether a build is due, and why.
 * @param {string} root
 * @param {{ inputs?: readonly string[], outputs?: readonly string[] }} [lists]
 * @returns {{ due: boolean, reason: string }}
 */
export function buildDue(root, { inputs = BUILD_INPUTS, outputs = BUILD_OUTPUTS } = {}) {
  const startedAt = stampedAt(root);
  if (startedAt === undefined) return { due: true, reason: 'no build recorded' };
  const missing = outputs.find((output) => !existsSync(join(root, output)));
  if (missing !== undefined) return { due: true, reason: `${missing} is missing` };
  const newest = newestInput(root, inputs);
  // Strictly before: a file written in the same tick as the build started may not be in it.
  if (newest !== undefined && newest.at >= startedAt)
    return { due: true, reason: `${newest.path} changed since the last build` };
  return { due: false, reason: 'nothing changed since the last build' };
}

/**
 * A build starts: the last one is forgotten (until this one succeeds, dist/ is not known to be up to date), and the
 * time it starts is read from the file system, as the inputs' times are (its clock may lag the process's by a tick:
 * compared with `Date.now()`, a file saved just after the start could look older than it).
 * @param {string} root
 * @returns {number} the start, in the inputs' time (epoch ms)
 */
export function startBuild(root) {
  const stamp = join(root, BUILD_STAMP);
  rmSync(stamp, { force: true });
  mkdirSync(dirname(stamp), { recursive: true });
  // Named by the process: two builds at once (a test run's and a start's) never share a file.
  const probe = `${stamp}.${process.pid}.start`;
  writeFileSync(probe, 'building\n');
  const startedAt = statSync(probe).mtimeMs;
  rmSync(probe, { force: true });
  return startedAt;
}

/**
 * Records a successful build that started at `startedAt` (from `startBuild`).
 * @param {string} root
 * @param {number} startedAt
 */
export function recordBuild(root, startedAt) {
  const stamp = join(root, BUILD_STAMP);
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(`${stamp}.${process.pid}.tmp`, `${startedAt}\n`);
  renameSync(`${stamp}.${process.pid}.tmp`, stamp);
}

/**
 * @param {string} root
 * @returns {number | undefined}
 */
function stampedAt(root) {
  try {
    const startedAt = Number(readFileSync(join(root, BUILD_STAMP), 'utf8').trim());
    return Number.isFinite(startedAt) && startedAt > 0 ? startedAt : undefined;
  } catch {
    return undefined;
  }
}
