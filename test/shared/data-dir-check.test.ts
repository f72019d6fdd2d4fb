import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertDataDirUsable, dataDirError } from '../../src/shared/data-dir-check.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-data-dir-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('assertDataDirUsable', () => {
  it('creates a missing data dir, parents included, and accepts it again', async () => {
    const dataDir = join(dir, 'a', 'b', 'data');
    await assertDataDirUsable(dataDir);
    expect((await stat(dataDir)).isDirectory()).toBe(true);
    await assertDataDirUsable(dataDir);
  });

  it('refuses a path under a file (ENOTDIR) and a file (EEXIST) with CONFIG_INVALID naming VIGIL_DATA_DIR, never --repair', async () => {
    const file = join(dir, 'plain-file');
    await writeFile(file, 'x');
    for (const [dataDir, reason] of [
      [join(file, 'data'), /a part of the path is a file, not a directory \(ENOTDIR\)/],
      [file, /it is a file, not a directory \(EEXIST\)/],
    ] as const) {
      const err = await assertDataDirUsable(dataDir).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'CONFIG_INVALID', data: { variable: 'VIGIL_DATA_DIR', value: dataDir } });
      expect((err as Error).message).toMatch(reason);
      expect((err as Error).message).toMatch(/cannot be created or read/);
      expect((err as Error).message).not.toMatch(/repair/);
    }
  });
});

describe('dataDirError', () => {
  it('says permission denied for EACCES, naming the path inside the data dir that is refused', () => {
    const cause = Object.assign(new Error("EACCES: permission denied, open '/srv/vigil/db/LOCK'"), { code: 'EACCES' });
    const err = dataDirError('/srv/vigil', '/srv/vigil/db/LOCK', cause);
    expect(err.message).toBe(
      'The data dir /srv/vigil cannot be created or read: permission denied (EACCES) at /srv/vigil/db/LOCK. ' +
        'VIGIL_DATA_DIR (--data-dir) must be a directory this user can create, read and write: choose another with --data-dir, or give this user access to it.',
    );
    expect(err.cause).toBe(cause);
  });
});
