/** Opening the data dir's database: creation, the lock held by another daemon, other failures, and repair. */
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openVigilDb, repairVigilDb, toStoreError, type VigilDb } from '../../../src/subsystems/store/vigil-db.js';

describe('openVigilDb', () => {
  let dataDir: string;
  const open: VigilDb[] = [];

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vigil-db-'));
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((db) => (db.status === 'open' ? db.close() : undefined)));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates <dataDir>/db, missing parents included, and opens it', async () => {
    const nested = join(dataDir, 'a', 'b');
    const db = await openVigilDb(nested);
    open.push(db);
    expect(db.status).toBe('open');
    expect((await stat(join(nested, 'db'))).isDirectory()).toBe(true);
    await db.put('k', 'v');
    expect(await db.get('k')).toBe('v');
  });

  it('rejects a second open of a data dir in use with STORE_LOCKED', async () => {
    open.push(await openVigilDb(dataDir));
    const second = openVigilDb(dataDir);
    await expect(second).rejects.toMatchObject({
      code: 'STORE_LOCKED',
      message: `The data dir ${dataDir} is in use by another Vigil daemon.`,
    });
  });

  it('opens again once the first daemon has closed it, with the data kept', async () => {
    const first = await openVigilDb(dataDir);
    await first.put('k', 'kept');
    await first.close();
    const again = await openVigilDb(dataDir);
    open.push(again);
    expect(await again.get('k')).toBe('kept');
  });

  it('rejects with CONFIG_INVALID naming VIGIL_DATA_DIR when the data dir, or its db, is a file (no repair can help)', async () => {
    const file = join(dataDir, 'not-a-dir');
    await writeFile(file, 'x');
    await expect(openVigilDb(file)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      data: { variable: 'VIGIL_DATA_DIR' },
    });
    const holdsDbFile = join(dataDir, 'holds-a-db-file');
    await mkdir(holdsDbFile);
    await writeFile(join(holdsDbFile, 'db'), 'not LevelDB');
    await expect(openVigilDb(holdsDbFile)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/it is a file, not a directory \(EEXIST\) at .*holds-a-db-file\/db\./),
    });
  });

  it('repairs a closed database and keeps its data', async () => {
    const db = await openVigilDb(dataDir);
    await db.put('k', 'v');
    await db.close();
    await repairVigilDb(dataDir);
    const reopened = await openVigilDb(dataDir);
    open.push(reopened);
    expect(await reopened.get('k')).toBe('v');
  });

  it('maps an operation on a closed database to RUNTIME_STOPPED', async () => {
    const db = await openVigilDb(dataDir);
    await db.close();
    const err = await db.get('k').catch((e: unknown) => e);
    expect(toStoreError(err, 'read k')).toMatchObject({ code: 'RUNTIME_STOPPED' });
    expect(toStoreError(new Error('disk full'), 'write k')).toMatchObject({ code: 'STORE_IO' });
  });
});
