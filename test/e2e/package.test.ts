/** The published package: `npm pack`, installed into an empty project, works from plain Node with its types (CONTRACT §7). */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runProcess, type Finished } from './run-process.js';

const FIXTURES = join(ROOT, 'test/fixtures/package-consumer');
const require = createRequire(import.meta.url);
const TSC = require.resolve('typescript/bin/tsc');
// Pinned to the versions this checkout installed, so npm finds them in its cache and needs no network.
const TYPES_NODE = `@types/node@${(require('@types/node/package.json') as { version: string }).version}`;

let work: string;
let app: string;
let installed: Finished;

/**
 * The machine's network settings, which npm needs when it asks the registry: a TLS-inspecting proxy's CA
 * (NODE_EXTRA_CA_CERTS) above all. Without them, on a machine whose npm cache lacked a package's metadata, every
 * request failed with SELF_SIGNED_CERT_IN_CHAIN and npm retried until the install's timeout. Nothing else of the
 * test's environment is passed: `npm test` sets npm_config_* (its own prefix among them) for its scripts.
 */
const NETWORK_SETTINGS = /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|HTTPS?_PROXY|NO_PROXY)$/i;
const NETWORK_ENV = Object.fromEntries(
  Object.entries(process.env).filter(
    (entry): entry is [string, string] => NETWORK_SETTINGS.test(entry[0]) && entry[1] !== undefined,
  ),
);

/** `npm …` in `cwd`; the whole output on failure. */
async function npm(cwd: string, args: string[], timeoutMs: number): Promise<Finished> {
  const result = await runProcess('npm', args, { cwd, timeoutMs, env: NETWORK_ENV });
  if (result.code !== 0)
    throw new Error(`npm ${args.join(' ')} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

beforeAll(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), 'vigil-package-')));
  app = join(work, 'app');
  // `npm pack` runs `prepare` (the build), as publishing does; the global setup left it up to date, so it is quick.
  const packed = await npm(ROOT, ['pack', '--json', '--pack-destination', work], 120_000);
  const [{ filename }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{ filename: string }];
  await mkdir(app);
  await writeFile(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'vigil-consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  // --prefer-offline takes what npm's cache holds without asking the registry: the tarballs after `npm ci`, and the
  // packages' metadata once an install has resolved them (`npm ci` reads the lockfile and fetches none).
  installed = await npm(
    app,
    ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, filename), TYPES_NODE],
    180_000,
  );
  for (const name of ['library-smoke.mjs', 'consumer.ts']) await copyFile(join(FIXTURES, name), join(app, name));
}, 300_000);

afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('the packed package, installed elsewhere', () => {
  // On a supported Node.js line (22, 24, 26; .ci/run runs this file on each) no dependency's engines say otherwise.
  it('installs without an engine warning', () => {
    expect(`${installed.stdout}${installed.stderr}`).not.toMatch(/EBADENGINE/);
  });

  it('runs from plain node: createRuntime with the offline thinker, its gateway, connect, the dashboard and its bundled client', async () => {
    const { code, stdout, stderr } = await runProcess(process.execPath, ['library-smoke.mjs'], { cwd: app });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      state: 'awake',
      thinker: 'offline',
      page: { status: 200, html: true },
      chart: 200,
      bundle: { status: 200, type: 'text/javascript; charset=utf-8', exportsConnect: true },
    });
  });

  it('installs a `vigil` binary that runs the compiled code, without tsx', async () => {
    const bin = join(app, 'node_modules/.bin/vigil');
    expect(await readFile(bin, 'utf8')).not.toMatch(/tsx/);
    const { code, stdout } = await runProcess(bin, ['--version'], { cwd: app });
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(
      (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
    );
  });

  it('runs `vigil run` from its start-up bundle; the packages kept outside it resolve in the installing project', async () => {
    const bin = join(app, 'node_modules/.bin/vigil');
    const daemon = spawn(bin, ['run', '--data-dir', join(work, 'daemon-data'), '--port', '0'], {
      cwd: app,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => daemon.once('exit', (code) => resolve(code)));
    let stdout = '';
    let stderr = '';
    daemon.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const listening = await new Promise<Record<string, unknown>>((resolve, reject) => {
      daemon.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const line = stdout.split('\n').find((text) => text.includes('"gateway listening"'));
        if (line !== undefined) resolve(JSON.parse(line) as Record<string, unknown>);
      });
      void exited.then((code) => reject(new Error(`vigil run exited (${code}) before listening: ${stderr}`)));
    });
    expect(listening['url']).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(`${String(listening['url'])}/healthz`)).json()).toMatchObject({ ok: true });
    daemon.kill('SIGTERM');
    expect(await exited).toBe(0);
    // Only the daemon's one next-steps line (where to go next); nothing else on stderr.
    expect(stderr).toMatch(/^Vigil is listening at [^\n]*\n$/);
  });

  it('ships type declarations: a TypeScript consumer type-checks under --strict with NodeNext resolution', async () => {
    const { code, stdout, stderr } = await runProcess(
      process.execPath,
      [TSC, '--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', 'consumer.ts'],
      { cwd: app, timeoutMs: 120_000 },
    );
    expect(`${stdout}${stderr}`).toBe('');
    expect(code).toBe(0);
  }, 120_000);
});
