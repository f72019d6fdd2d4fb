/**
 * A clean stop compacts the store when LevelDB holds level-0 tables, so the next open neither replays a log into a
 * new one nor starts compacting them into level 1 while the daemon boots; data is unchanged.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime } from '../../../src/runtime/create-runtime.js';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import { compactBeforeClose, openVigilDb, type VigilDb } from '../../../src/subsystems/store/vigil-db.js';

const levelZeroTables = (db: VigilDb): number =>
  Number((db as unknown as { getProperty: (p: string) => string }).getProperty('leveldb.num-files-at-level0'));

describe('compactBeforeClose', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vigil-compact-'));
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('leaves no level-0 table for the next open, and every value as it was', async () => {
    for (let run = 0; run < 3; run += 1) {
      const db = await openVigilDb(dataDir);
      await db.batch(Array.from({ length: 200 }, (_, i) => ({ type: 'put', key: `k${run}-${i}`, value: `v${i}` })));
      await db.close();
    }
    const db = await openVigilDb(dataDir);
    // Each open turned the previous run's log into a level-0 table.
    expect(levelZeroTables(db)).toBeGreaterThan(0);
    expect(await compactBeforeClose(db)).toBe(true);
    expect(levelZeroTables(db)).toBe(0);
    await db.close();
    const reopened = await openVigilDb(dataDir);
    expect(levelZeroTables(reopened)).toBe(0);
    expect(await reopened.get('k0-7')).toBe('v7');
    expect((await reopened.keys().all()).length).toBe(600);
    // Nothing to do now.
    expect(await compactBeforeClose(reopened)).toBe(false);
    await reopened.close();
  });

  it('does nothing on a database that cannot compact', async () => {
    const db = new MemoryLevel<string, string>() as unknown as VigilDb;
    await db.open();
    expect(await compactBeforeClose(db)).toBe(false);
    await db.close();
  });

  it('runs at the daemon’s clean stop: the next open of its data dir finds no level-0 table', async () => {
    for (let run = 0; run < 2; run += 1) {
      const runtime = await createRuntime({
        clock: createSimulatedClock(Date.parse('2026-11-26T12:00:00Z')),
        config: { dataDir, thinker: 'offline', checkpointEnabled: true },
      });
      await runtime.send({ text: `hello ${run}` });
      await runtime.stop();
    }
    const db = await openVigilDb(dataDir);
    expect(levelZeroTables(db)).toBe(0);
    await db.close();
  });
});
