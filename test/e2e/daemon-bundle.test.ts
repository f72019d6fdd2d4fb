/**
 * `vigil run` and `vigil mcp` start from the bundle (dist/bundle/, scripts/daemon-bundle.mjs): none of the compiled modules is
 * resolved one by one, the packages bundled into it are not read from node_modules, and the files it finds by path
 * (package.json's version, the default identity, the dashboard and uPlot) are the package's own.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_ENV, startDaemon } from './daemon-process.js';
import { ROOT, runNode } from './run-process.js';

const RECORDER = join(ROOT, 'test/fixtures/import-recorder.mjs');
const TOKEN = 'daemon-bundle-e2e-token-8d1f';
// A compiled module loaded file by file: anything under dist/ but the bundle (and the dashboard, which is read, not imported).
const UNBUNDLED = /\/dist\/(?!bundle\/)/;
// The packages the bundle holds, which a boot must therefore not read from node_modules.
const BUNDLED_PACKAGES = /\/node_modules\/(zod|xstate|rxjs|ws|prom-client|minisearch|abstract-level|level)\//;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-bundle-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the daemon runs from its start-up bundle', () => {
  it('imports the bundle and no compiled module one by one; the packages kept outside it come from node_modules', async () => {
    const log = join(dir, 'imports.log');
    const daemon = startDaemon(['run', '--data-dir', join(dir, 'imports'), '--port', '0'], {
      ...FAST_ENV,
      VIGIL_TOKEN: TOKEN,
      VIGIL_IMPORT_LOG: log,
      NODE_OPTIONS: `--import=${RECORDER}`,
    });
    await daemon.waitFor((line) => line.msg === 'gateway listening');
    daemon.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    const urls = (await readFile(log, 'utf8')).trim().split('\n');
    expect(urls.some((url) => url.endsWith('/dist/bundle/cli.js'))).toBe(true);
    expect(urls.filter((url) => UNBUNDLED.test(url))).toEqual([]);
    expect(urls.filter((url) => BUNDLED_PACKAGES.test(url))).toEqual([]);
    expect(urls.some((url) => url.includes('/node_modules/pino/'))).toBe(true);
  });

  it('`vigil mcp`, started by an MCP host at every session, runs from the bundle too, the MCP SDK with it', async () => {
    const log = join(dir, 'mcp-imports.log');
    // stdin is closed at once, so the server loads, connects and exits: every module it needs is imported by then.
    const run = await runNode(['bin/vigil.js', 'mcp', '--url', 'ws://127.0.0.1:9', '--token', TOKEN], {
      VIGIL_IMPORT_LOG: log,
      NODE_OPTIONS: `--import=${RECORDER}`,
    });
    expect(run.code, run.stderr).toBe(0);
    const urls = (await readFile(log, 'utf8')).trim().split('\n');
    expect(urls.some((url) => url.endsWith('/dist/bundle/cli.js'))).toBe(true);
    expect(urls.filter((url) => UNBUNDLED.test(url))).toEqual([]);
    expect(
      urls.filter((url) => BUNDLED_PACKAGES.test(url) || /\/node_modules\/(@modelcontextprotocol|ajv)\//.test(url)),
    ).toEqual([]);
  });

  it('`vigil mcp` answers initialize from modules that hold neither zod nor the MCP SDK (they load after)', async () => {
    // What the command's chunk imports statically is all that loads before the early answer (early-initialize.ts).
    const bundle = join(ROOT, 'dist/bundle');
    const entry = (await readdir(bundle)).find((name) => /^mcp\.command-[A-Z0-9]+\.js$/.test(name));
    expect(entry).toBeDefined();
    const seen = new Set<string>();
    const pending = [entry!];
    const heavy: string[] = [];
    for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
      if (seen.has(name)) continue;
      seen.add(name);
      const source = await readFile(join(bundle, name), 'utf8');
      if (/node_modules\/(zod|@modelcontextprotocol)\//.test(source)) heavy.push(name);
      for (const [, imported] of source.matchAll(/^(?:import|export)\s[^;]*?["']\.\/([^"']+)["']/gms)) {
        pending.push(imported!);
      }
    }
    expect(seen.size).toBeGreaterThan(1);
    expect(heavy).toEqual([]);
  });

  it('finds the package files it reads by path: the version, the default identity, the dashboard and uPlot', async () => {
    // The default identity is read before the runtime is built: a boot that reaches 'gateway listening' has found it.
    const daemon = startDaemon(['run', '--data-dir', join(dir, 'files'), '--port', '0'], {
      ...FAST_ENV,
      VIGIL_TOKEN: TOKEN,
    });
    try {
      const url = String((await daemon.waitFor((line) => line.msg === 'gateway listening')).url);
      const status = await runNode(['bin/vigil.js', 'rpc', 'heartbeat.status', '--url', url, '--token', TOKEN]);
      expect(status.code, status.stderr).toBe(0);
      const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
      expect(JSON.parse(status.stdout)).toMatchObject({ version });
      // A program asks with the Bearer header (?token= is the browser's once-only trade for a cookie and a 303).
      const page = await fetch(`${url}/`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
      const client = await fetch(`${url}/dashboard/vigil-client.js?token=${TOKEN}`);
      expect(client.status).toBe(200);
      const uplot = await fetch(`${url}/dashboard/vendor/uplot.esm.js?token=${TOKEN}`);
      expect(uplot.status).toBe(200);
      expect(await uplot.text()).toBe(await readFile(join(ROOT, 'node_modules/uplot/dist/uPlot.esm.js'), 'utf8'));
    } finally {
      daemon.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
    }
  });
});
