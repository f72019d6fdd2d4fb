#!/usr/bin/env node
// `npm run build`: compiles src/ into dist/ (tsc --build, incremental), bundles the browser client with esbuild and copies the dashboard's static files beside the compiled route, then bundles the compiled daemon for `vigil run` (dist/bundle/).
// With --if-changed (`npm start`'s prestart) it does nothing when no input changed since the last successful build (scripts/build-freshness.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDue, recordBuild, startBuild } from './build-freshness.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const IF_CHANGED = '--if-changed';
if (process.argv.includes(IF_CHANGED)) {
  const { due, reason } = buildDue(root);
  if (!due) {
    console.log(`dist/ is up to date: ${reason} (npm run build builds anyway).`);
    process.exit(0);
  }
  console.log(`building dist/: ${reason}.`);
}
/** When this build started, or undefined if it cannot be recorded (a read-only node_modules): it builds all the same. */
let startedAt;
try {
  startedAt = startBuild(root);
} catch (err) {
  console.error(`the build will not be recorded: ${err instanceof Error ? err.message : String(err)}`);
}
// Loaded after the check: a start with nothing to build pays for no bundler.
const { bundleBrowserClient } = await import('./browser-bundle.mjs');
const { bundleDaemon, DAEMON_BUNDLE_DIR } = await import('./daemon-bundle.mjs');
// The dashboard's own files are served as written (plain browser modules): these are the kinds of file it has.
const DASHBOARD_EXTENSIONS = new Set(['.html', '.css', '.js', '.svg']);

// The project's own TypeScript, run with this Node: no shell, no PATH lookup, the same on every platform.
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(
  process.execPath,
  [tsc, '--build', join(root, 'tsconfig.build.json'), ...process.argv.slice(2).filter((arg) => arg !== IF_CHANGED)],
  {
    stdio: 'inherit',
  },
);

const from = join(root, 'src/gateway/dashboard');
const to = join(root, 'dist/gateway/dashboard');
mkdirSync(to, { recursive: true });

/**
 * Writes `body` to `target` unless it holds it already.
 * @param {string} target
 * @param {Buffer} body
 */
function writeIfChanged(target, body) {
  if (existsSync(target) && readFileSync(target).equals(body)) return;
  // Written aside, then renamed: a daemon serving dist/ (a test, while `npm pack` rebuilds) never reads half a file.
  writeFileSync(`${target}.tmp`, body);
  renameSync(`${target}.tmp`, target);
}

const written = new Set();
for (const name of readdirSync(from)) {
  if (!DASHBOARD_EXTENSIONS.has(extname(name))) continue;
  writeIfChanged(join(to, name), readFileSync(join(from, name)));
  written.add(name);
}

let bundled = true;
try {
  const { outputFiles } = await bundleBrowserClient(root, to);
  for (const file of outputFiles) {
    writeIfChanged(file.path, Buffer.from(file.contents));
    written.add(basename(file.path));
  }
} catch (err) {
  bundled = false;
  console.error(`the browser client did not bundle:\n${err instanceof Error ? err.message : String(err)}`);
}

// A file the dashboard no longer has (a renamed module) must not linger in dist/ and so in the package.
if (bundled) {
  for (const name of readdirSync(to)) {
    if (!written.has(name) && !name.endsWith('.tmp')) rmSync(join(to, name));
  }
}

// `vigil run` loads the daemon from one bundle of the compiled code (scripts/daemon-bundle.mjs); chunks a new build no
// longer has are removed, as the dashboard's are.
const daemonDir = join(root, DAEMON_BUNDLE_DIR);
let daemonBundled = true;
try {
  const { outputFiles } = await bundleDaemon(root);
  mkdirSync(daemonDir, { recursive: true });
  const daemonFiles = new Set();
  for (const file of outputFiles) {
    writeIfChanged(file.path, Buffer.from(file.contents));
    daemonFiles.add(basename(file.path));
  }
  for (const name of readdirSync(daemonDir)) {
    if (!daemonFiles.has(name) && !name.endsWith('.tmp')) rmSync(join(daemonDir, name));
  }
} catch (err) {
  daemonBundled = false;
  console.error(`the daemon did not bundle:\n${err instanceof Error ? err.message : String(err)}`);
}

// tsc emits despite type errors, and so the dashboard is copied anyway; the exit code still reports them.
process.exitCode = compiled.status === 0 && bundled && daemonBundled ? 0 : (compiled.status ?? 1) || 1;
// Only a build that succeeded is recorded: after a failed one, the next start builds again.
if (process.exitCode === 0 && startedAt !== undefined) recordBuild(root, startedAt);
