/** Runs the checkpoint store contract on memory-level and on a real on-disk LevelDB. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { MemoryLevel } from 'memory-level';
import { afterAll } from 'vitest';
import type { VigilDb } from '../../../src/subsystems/store/vigil-db.js';
import { runCheckpointStoreContract } from '../../contracts/checkpoint-store.contract.js';

const dirs: string[] = [];
const locations = new Map<VigilDb, string>();

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

runCheckpointStoreContract('memory-level', async () => new MemoryLevel<string, string>());

runCheckpointStoreContract(
  'on-disk level',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vigil-ckstore-'));
    dirs.push(dir);
    const db = new Level<string, string>(dir);
    await db.open();
    locations.set(db, dir);
    return db;
  },
  {
    // A restart is a new process: close the database and open a new instance on the same directory.
    reopen: async (db) => {
      const dir = locations.get(db)!;
      await db.close();
      const next = new Level<string, string>(dir);
      await next.open();
      locations.set(next, dir);
      return next;
    },
  },
);
