import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScheduleRecord } from '../../../src/protocol/schedules.schema.js';
import { ScheduleStore } from '../../../src/subsystems/schedules/schedule-store.js';
import { openVigilDb, writeSyncBatch, type VigilDb } from '../../../src/subsystems/store/vigil-db.js';

const record = (id: string, nextAt: number | null, paused = false): ScheduleRecord => ({
  id,
  name: id,
  text: `text of ${id}`,
  everyMs: 60_000,
  timezone: 'UTC',
  catchUp: 'once',
  maxCatchUp: 10,
  paused,
  createdBy: 'operator',
  createdAt: 0,
  nextAt,
  lastFiredAt: null,
  fired: 0,
  missed: 0,
});

describe('ScheduleStore (on-disk LevelDB)', () => {
  const dirs: string[] = [];
  const dbs: VigilDb[] = [];
  afterEach(async () => {
    for (const db of dbs.splice(0)) await db.close().catch(() => undefined);
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });
  async function reopen(dir: string): Promise<{ db: VigilDb; store: ScheduleStore }> {
    const db = await openVigilDb(dir);
    dbs.push(db);
    return { db, store: await ScheduleStore.open(db, { defaultTimezone: 'Europe/Berlin' }) };
  }

  it('keeps schedules across a reopen and finds the earliest that is not paused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vigil-schedules-'));
    dirs.push(dir);
    const first = await reopen(dir);
    await first.store.save(record('s-b', 5_000));
    await first.store.save(record('s-a', 9_000));
    await first.store.save(record('s-c', 1_000, true));
    await first.store.save(record('s-d', null));
    await first.store.remove('s-b');
    await first.db.close();

    const { store } = await reopen(dir);
    expect(store.list().map((r) => r.id)).toEqual(['s-a', 's-c', 's-d']);
    expect(store.earliestDue()).toBe(9_000);
    expect(store.defaultTimezone).toBe('Europe/Berlin');
  });

  it('writes a record with another batch only when that batch is written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vigil-schedules-'));
    dirs.push(dir);
    const { db, store } = await reopen(dir);
    await store.save(record('s-a', 1_000));
    const advanced = { ...record('s-a', 61_000), fired: 1 };
    await writeSyncBatch(db, [store.putOp(advanced)]);
    store.committed(advanced);
    expect(store.get('s-a')?.fired).toBe(1);
    await db.close();
    expect((await reopen(dir)).store.get('s-a')).toEqual(advanced);
  });
});
