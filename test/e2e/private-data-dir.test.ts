/**
 * A real `vigil run` keeps its data dir to its user (CONTRACT §4): every directory 0700 and every file 0600 after a
 * run that wrote, checkpointed and stopped (LevelDB's own files included); a data dir or token file someone opened
 * to others is tightened at boot and logged once; and a VIGIL_TOKEN under 128 bits exits 2
 * naming the variable, never showing the value (CONTRACT §3).
 */
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/vigil-client.js';
import { FAST_ENV, startDaemon, type DaemonProcess, type LogLine } from './daemon-process.js';

let root: string;
const started: DaemonProcess[] = [];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'vigil-private-'));
});
afterAll(async () => {
  for (const daemon of started) daemon.kill('SIGKILL');
  await rm(root, { recursive: true, force: true });
});

/** Every path under `dir` (itself included) with its permission bits, as `relative path → octal mode`. */
async function modesUnder(dir: string): Promise<Record<string, string>> {
  const modes: Record<string, string> = {};
  const walk = async (path: string): Promise<void> => {
    const info = await stat(path);
    modes[relative(dir, path) || '.'] = (info.mode & 0o777).toString(8).padStart(4, '0');
    if (info.isDirectory()) for (const entry of await readdir(path)) await walk(join(path, entry));
  };
  await walk(dir);
  return modes;
}

function run(dataDir: string, env: Record<string, string> = {}): DaemonProcess {
  const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], { ...FAST_ENV, ...env });
  started.push(daemon);
  return daemon;
}

const warnings = (daemon: DaemonProcess): LogLine[] =>
  daemon.lines.filter((l) => l.level === 40 && l['mode'] !== undefined && l['path'] !== undefined);

describe('the data dir of a real daemon', () => {
  it('is 0700 with every file 0600 and every directory 0700 after a run that wrote, checkpointed and stopped', async () => {
    const dataDir = join(root, 'fresh', 'data');
    const daemon = run(dataDir);
    const url = String((await daemon.waitFor((l) => l.msg === 'gateway listening')).url);
    const { readTokenFile } = await import('../../src/shared/token-file.js');
    const client = await connect({ url, token: (await readTokenFile(dataDir))!, reconnect: false });
    await client.agent.send({ text: 'remember that the walls are thin' });
    await client.checkpoint.create();
    await client.close();
    daemon.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    // A fresh dir warns about nothing.
    expect(warnings(daemon)).toEqual([]);

    const modes = await modesUnder(dataDir);
    // What a run leaves: the token, LevelDB's CURRENT, LOCK, LOG, MANIFEST, .log and (after the stop's compaction) .ldb.
    expect(Object.keys(modes)).toEqual(expect.arrayContaining(['.', 'token', 'db', 'db/CURRENT', 'db/LOCK', 'db/LOG']));
    expect(Object.keys(modes).some((p) => /^db\/MANIFEST-\d+$/.test(p))).toBe(true);
    expect(Object.keys(modes).some((p) => /^db\/\d+\.(log|ldb)$/.test(p))).toBe(true);
    const dirs = new Set(['.', 'db']);
    for (const [path, mode] of Object.entries(modes))
      expect(`${path} ${mode}`).toBe(`${path} ${dirs.has(path) || path.endsWith('/lost') ? '0700' : '0600'}`);
  });

  it('writes daemon.json 0600 while it runs', async () => {
    const dataDir = join(root, 'running');
    const daemon = run(dataDir);
    await daemon.waitFor((l) => l.msg === 'gateway listening');
    expect(((await stat(join(dataDir, 'daemon.json'))).mode & 0o777).toString(8)).toBe('600');
    daemon.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  });

  it('tightens a data dir 0755 and a token file 0644 at start, logging each once, and starts', async () => {
    const dataDir = join(root, 'shared');
    await mkdir(dataDir, { mode: 0o755 });
    await chmod(dataDir, 0o755);
    await writeFile(join(dataDir, 'token'), `${'ab'.repeat(16)}\n`, { mode: 0o644 });
    await chmod(join(dataDir, 'token'), 0o644);
    const daemon = run(dataDir);
    await daemon.waitFor((l) => l.msg === 'gateway listening');
    expect(warnings(daemon)).toEqual([
      expect.objectContaining({
        path: dataDir,
        mode: '0755',
        tightenedTo: '0700',
        msg: expect.stringContaining(`the data dir ${dataDir} was open to other users (mode 0755)`),
      }),
      expect.objectContaining({
        path: join(dataDir, 'token'),
        mode: '0644',
        tightenedTo: '0600',
        msg: expect.stringContaining('could act with the operate scope'),
      }),
    ]);
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dataDir, 'token'))).mode & 0o777).toBe(0o600);
    daemon.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  });

  it('refuses a VIGIL_TOKEN under 128 bits: exit 2 naming VIGIL_TOKEN, the value never shown, nothing created', async () => {
    const dataDir = join(root, 'never');
    for (const token of ['k', 'hunter2hunter2', 'ab'.repeat(15)]) {
      const daemon = run(dataDir, { VIGIL_TOKEN: token });
      expect(await daemon.exited).toBe(2);
      expect(daemon.stderr()).toContain(
        `VIGIL_TOKEN="<hidden, ${token.length} characters>" is invalid: expected at least 128 random bits`,
      );
      if (token.length > 1) expect(daemon.stderr()).not.toContain(token);
    }
    await expect(stat(dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
    // And one of 128 bits (openssl rand -hex 16) starts, on a host other machines reach too.
    const daemon = startDaemon(['run', '--host', '0.0.0.0', '--data-dir', dataDir, '--port', '0'], {
      ...FAST_ENV,
      VIGIL_TOKEN: 'ab'.repeat(16),
    });
    started.push(daemon);
    await daemon.waitFor((l) => l.msg === 'gateway listening');
    daemon.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  });
});
