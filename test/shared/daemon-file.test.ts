import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DaemonFileSchema } from '../../src/protocol/daemon-file.schema.js';
import {
  clientReachableUrl,
  daemonFilePath,
  isProcessAlive,
  readDaemonFile,
  removeDaemonFile,
  writeDaemonFile,
} from '../../src/shared/daemon-file.js';

const INFO = { url: 'http://127.0.0.1:43210', pid: 4242, startedAt: '2026-03-01T10:00:00.000Z' };
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-daemon-file-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('DaemonFileSchema', () => {
  it('accepts {url, pid, startedAt} and keeps fields a newer daemon may add', () => {
    expect(DaemonFileSchema.parse({ ...INFO, version: '9.0.0' })).toEqual({ ...INFO, version: '9.0.0' });
  });

  it.each([
    ['a URL that is not http(s)', { ...INFO, url: 'ws://127.0.0.1:1/rpc' }],
    ['a URL that is not a URL', { ...INFO, url: 'port 7420' }],
    ['a pid of 0', { ...INFO, pid: 0 }],
    ['a fractional pid', { ...INFO, pid: 1.5 }],
    ['a start time without a zone', { ...INFO, startedAt: '2026-03-01 10:00' }],
    ['a missing url', { pid: 1, startedAt: INFO.startedAt }],
  ])('rejects %s', (_what, value) => {
    expect(DaemonFileSchema.safeParse(value).success).toBe(false);
  });
});

describe('the daemon file', () => {
  it('is written whole, read back with whether its process lives, and removed only by that process', async () => {
    const path = await writeDaemonFile(dir, INFO);
    expect(path).toBe(daemonFilePath(dir));
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(INFO);
    expect(await readDaemonFile(dir, (pid) => pid === 4242)).toEqual({ kind: 'found', path, info: INFO, alive: true });
    expect(await readDaemonFile(dir, () => false)).toMatchObject({ kind: 'found', alive: false });
    expect(await removeDaemonFile(dir, 999)).toBe(false);
    expect(await removeDaemonFile(dir, 4242)).toBe(true);
    expect(await readDaemonFile(dir)).toEqual({ kind: 'absent', path });
  });

  it('reports a file that is not JSON or not the schema as invalid, saying why', async () => {
    await writeFile(daemonFilePath(dir), '{"url":');
    expect(await readDaemonFile(dir)).toMatchObject({ kind: 'invalid', reason: expect.stringMatching(/not JSON/) });
    await writeFile(daemonFilePath(dir), JSON.stringify({ ...INFO, pid: 'many' }));
    expect(await readDaemonFile(dir)).toMatchObject({ kind: 'invalid', reason: expect.stringMatching(/^pid: /) });
    await rm(daemonFilePath(dir));
  });

  it('is absent for a data dir that does not exist or is a file', async () => {
    expect((await readDaemonFile(join(dir, 'never'))).kind).toBe('absent');
    await writeFile(join(dir, 'a-file'), 'x');
    expect((await readDaemonFile(join(dir, 'a-file'))).kind).toBe('absent');
  });

  it('names a loopback address for a gateway bound to every interface', () => {
    expect(clientReachableUrl('http://0.0.0.0:7420')).toBe('http://127.0.0.1:7420');
    expect(clientReachableUrl('http://[::]:7420')).toBe('http://[::1]:7420');
    expect(clientReachableUrl('http://192.168.1.5:7420')).toBe('http://192.168.1.5:7420');
  });

  it('tells a live process from one that is gone', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    // Far above any pid_max Linux allows (2^22): no such process can exist.
    expect(isProcessAlive(2 ** 30)).toBe(false);
  });
});
