import { chmod, lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { CliIo } from '../../src/client/commands/cli-io.js';
import { writePrivateFile } from '../../src/client/commands/private-file.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from '../gateway/gateway.fixture.js';

let h: GatewayHarness;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-cli-'));
  // main() imports each command when it runs. Loaded once here, that import costs no turns of the event loop inside
  // `until`, which advances simulated time on every turn (a status read would otherwise see extra beats).
  await Promise.all([
    import('../../src/client/commands/rpc.command.js'),
    import('../../src/client/commands/events.command.js'),
    import('../../src/client/commands/checkpoints.command.js'),
  ]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));
beforeEach(async () => {
  h = await startGatewayHarness();
});
afterEach(() => h.close());

/** Runs `vigil …` in-process against the test gateway; `interrupt` stands for Ctrl-C. */
function vigil(argv: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  let interrupt!: () => void;
  const interrupted = new Promise<void>((resolve) => (interrupt = resolve));
  const { port } = new URL(h.gateway.url);
  const io: CliIo = {
    env: { VIGIL_HOST: '127.0.0.1', VIGIL_PORT: port, VIGIL_TOKEN: TEST_TOKEN, ...env },
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readFile: (path) => readFile(path, 'utf8'),
    // The process's own writer (processIo): exports are checked as they are written for real.
    writeFile: writePrivateFile,
    interrupted: () => interrupted,
  };
  const code = main(argv, io);
  return { code, out: () => stdout, err: () => stderr, interrupt };
}

async function run(argv: string[], env: Record<string, string> = {}) {
  const call = vigil(argv, env);
  const code = await h.until(call.code);
  return { code, stdout: call.out(), stderr: call.err() };
}

describe('vigil rpc', () => {
  it('prints the result as JSON and exits 0', async () => {
    await h.advance(2000);
    const { code, stdout } = await run(['rpc', 'heartbeat.status']);
    expect(code).toBe(0);
    // `run` moves simulated time while the call is under way (100 ms a turn of the loop), so a loaded machine may see
    // a beat or more before the answer: the status is of some moment between the call and its answer.
    const { beatCount } = JSON.parse(stdout) as { beatCount: number };
    expect(beatCount).toBeGreaterThanOrEqual(2);
    expect(beatCount).toBeLessThanOrEqual(h.runtime.status().beatCount);
    const added = await run(['rpc', 'goals.add', '{"title":"From the shell","priority":4}']);
    expect(JSON.parse(added.stdout)).toMatchObject({ title: 'From the shell', priority: 4 });
  });

  it('prints a JSON-RPC error to stderr as sent, then what to do, and exits 1', async () => {
    const unknown = await run(['rpc', 'no.such.method']);
    expect(unknown.code).toBe(1);
    const [json, line, ...more] = unknown.stderr.trimEnd().split('\n');
    expect(JSON.parse(json!)).toEqual({ code: -32601, message: 'Method not found' });
    // The method named, and where the names are (the old line was the JSON alone).
    expect(line).toBe('vigil: no method "no.such.method". `vigil rpc rpc.discover` lists every method.');
    expect(more).toEqual([]);
    const bad = await run(['rpc', 'goals.complete', '{"id":"g-nope"}']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stderr.split('\n')[0]!)).toMatchObject({ code: -32004 });
    expect(bad.stderr).toMatch(/\nvigil: .*g-nope.* `vigil rpc goals.list` shows what there is\.\n$/);
  });

  it('exits 2 for bad usage: no method, params that are not JSON, an unknown flag', async () => {
    for (const argv of [['rpc'], ['rpc', 'goals.add', '{title:'], ['rpc', 'heartbeat.status', '--colour']]) {
      const { code, stderr } = await run(argv);
      expect(code).toBe(2);
      expect(stderr).toMatch(/usage: vigil rpc/);
    }
  });

  it('reads the token from the data dir when VIGIL_TOKEN is unset, and exits 1 for a wrong one', async () => {
    const dataDir = join(dir, 'with-token');
    await mkdir(dataDir, { recursive: true });
    await writeFile(join(dataDir, 'token'), `${TEST_TOKEN}\n`, { mode: 0o600 });
    const ok = await run(['rpc', 'memory.list', '--data-dir', dataDir], { VIGIL_TOKEN: '' });
    expect(ok.code).toBe(0);
    const wrong = await run(['rpc', 'memory.list', '--token', 'nope']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/401/);
  });

  it('exits 1 when no daemon listens', async () => {
    const { code, stderr } = await run(['rpc', 'heartbeat.status', '--url', 'http://127.0.0.1:1']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/No connection to the gateway/);
  });
});

describe('vigil checkpoints', () => {
  it('creates, lists, shows and restores (only with --yes) a checkpoint', async () => {
    const created = await run(['checkpoints', 'create']);
    expect(created.code).toBe(0);
    const { id, beatCount } = JSON.parse(created.stdout) as { id: string; beatCount: number };
    const list = await run(['checkpoints', 'list', '--limit', '5']);
    expect(JSON.parse(list.stdout)[0]).toMatchObject({ id, beatCount });
    expect(JSON.parse((await run(['checkpoints', 'show', id])).stdout)).toMatchObject({ id, beatCount });
    const unconfirmed = await run(['checkpoints', 'restore', id]);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toMatch(/"code":-32001/);
    expect(unconfirmed.stderr).toMatch(/--yes/);
    const confirmed = await run(['checkpoints', 'restore', id, '--yes']);
    expect(confirmed.code).toBe(0);
    expect(JSON.parse(confirmed.stdout)).toEqual({ restored: id, beatCount });
  });

  it('exports a checkpoint to a file (mode 0600) and imports it back under a new id', async () => {
    await run(['rpc', 'agent.send', '{"text":"pack this"}']);
    await h.advance(2000);
    const { id } = JSON.parse((await run(['checkpoints', 'create'])).stdout) as { id: string };
    const file = join(dir, 'agent.vigil.json');
    const exported = await run(['checkpoints', 'export', id, file]);
    expect(exported.code).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({ exported: id, file });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const imported = await run(['checkpoints', 'import', file]);
    expect(imported.code).toBe(0);
    const result = JSON.parse(imported.stdout) as { id: string; importedFrom: string };
    expect(result.importedFrom).toBe(id);
    expect(imported.stderr).toMatch(new RegExp(`checkpoints restore ${result.id} --yes`));
  });

  it('exports over an existing 0644 file and over a symlink as a new 0600 file, never writing through the link', async () => {
    const { id } = JSON.parse((await run(['checkpoints', 'create'])).stdout) as { id: string };
    const existing = join(dir, 'world-readable.json');
    await writeFile(existing, 'an older export that anyone could read\n');
    await chmod(existing, 0o644);
    expect((await run(['checkpoints', 'export', id, existing])).code).toBe(0);
    expect((await stat(existing)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(existing, 'utf8'))).toMatchObject({ checkpoint: { id } });

    const target = join(dir, 'someone-elses.txt');
    await writeFile(target, 'not an export\n');
    await chmod(target, 0o644);
    const link = join(dir, 'linked.json');
    await symlink(target, link);
    expect((await run(['checkpoints', 'export', id, link])).code).toBe(0);
    const written = await lstat(link);
    expect(written.isFile() && !written.isSymbolicLink()).toBe(true);
    expect(written.mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(link, 'utf8'))).toMatchObject({ checkpoint: { id } });
    expect(await readFile(target, 'utf8')).toBe('not an export\n');
    expect((await stat(target)).mode & 0o777).toBe(0o644);
  });

  it('exits 1 naming the file and the cause when the export cannot be written (a full disk, a directory)', async () => {
    const { id } = JSON.parse((await run(['checkpoints', 'create'])).stdout) as { id: string };
    const full = await run(['checkpoints', 'export', id, '/dev/full']);
    expect(full.code).toBe(1);
    expect(full.stderr).toBe(
      'vigil: cannot write the export to /dev/full: no space left on the device: free some space, or give a FILE on another disk (ENOSPC).\n',
    );
    const directory = await run(['checkpoints', 'export', id, dir]);
    expect(directory.code).toBe(1);
    expect(directory.stderr).toMatch(/cannot write the export to .*: it is a directory: give a file name .*\(EISDIR\)/);
  });

  it('exits 2 for an unknown subcommand, missing arguments, or a file that is not an export', async () => {
    const notExport = join(dir, 'not-an-export.json');
    await writeFile(notExport, '{"hello":"world"}');
    for (const argv of [
      ['checkpoints'],
      ['checkpoints', 'frob'],
      ['checkpoints', 'show'],
      ['checkpoints', 'import', notExport],
      ['checkpoints', 'import', join(dir, 'missing.json')],
    ]) {
      const { code, stderr } = await run(argv);
      expect(code).toBe(2);
      expect(stderr).toMatch(/usage: vigil checkpoints/);
    }
  });
});

describe('vigil events', () => {
  it('prints one JSON event per line, filtered by --types, until interrupted', async () => {
    const call = vigil(['events', '--types', 'heartbeat.beat,checkpoint.*']);
    for (let i = 0; i < 1000 && !call.out(); i += 1) {
      await h.advance(1000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await h.until(h.runtime.createCheckpoint());
    await h.advance(2000);
    for (let i = 0; i < 1000 && !call.out().includes('checkpoint.created'); i += 1)
      await new Promise((resolve) => setImmediate(resolve));
    call.interrupt();
    expect(await call.code).toBe(0);
    const lines = call
      .out()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; seq: number });
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.every((e) => e.type === 'heartbeat.beat' || e.type.startsWith('checkpoint.'))).toBe(true);
    expect(lines.some((e) => e.type === 'checkpoint.created')).toBe(true);
  });

  it('exits 2 for a bad --after', async () => {
    expect((await run(['events', '--after', 'later'])).code).toBe(2);
  });
});
