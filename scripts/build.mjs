#!/usr/bin/env node
// `npm run build`: compiles src/ into dist/ (tsc --build, incremental) and copies the dashboard's static files beside the compiled route.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// The dashboard is served as written (plain browser modules, no bundling): these are the kinds of file it has.
const DASHBOARD_EXTENSIONS = new Set(['.html', '.css', '.js', '.svg']);

// The project's own TypeScript, run with this Node: no shell, no PATH lookup, the same on every platform.
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '--build', join(root, 'tsconfig.build.json'), ...process.argv.slice(2)], {
  stdio: 'inherit',
});

const from = join(root, 'src/gateway/dashboard');
const to = join(root, 'dist/gateway/dashboard');
mkdirSync(to, { recursive: true });
for (const name of readdirSync(from)) {
  if (!DASHBOARD_EXTENSIONS.has(extname(name))) continue;
  const body = readFileSync(join(from, name));
  const target = join(to, name);
  if (existsSync(target) && readFileSync(target).equals(body)) continue;
  // Written aside, then renamed: a daemon serving dist/ (a test, while `npm pack` rebuilds) never reads half a file.
  writeFileSync(`${target}.tmp`, body);
  renameSync(`${target}.tmp`, target);
}
// tsc emits despite type errors, and so the dashboard is copied anyway; the exit code still reports them.
process.exitCode = compiled.status ?? 1;
