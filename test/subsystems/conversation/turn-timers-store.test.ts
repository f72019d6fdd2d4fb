import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { afterEach, describe, expect, it } from 'vitest';
import { TurnTimersStore } from '../../../src/subsystems/conversation/turn-timers-store.js';
import { SUBLEVELS, type VigilDb } from '../../../src/subsystems/store/vigil-db.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function openDb(): Promise<{ db: VigilDb; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'vigil-turn-timers-'));
  dirs.push(dir);
  return { db: new Level(dir) as unknown as VigilDb, dir };
}

describe('TurnTimersStore', () => {
  it('keeps the newest timers across a reopen of the on-disk store', async () => {
    const { db, dir } = await openDb();
    const store = new TurnTimersStore(db);
    expect(await store.read()).toBeNull();
    await store.record({ lastMessageAt: 1, lastDebriefAt: null, turnStartedAt: 2, turnInProgress: true });
    await store.record({ lastMessageAt: 3, lastDebriefAt: 4, turnStartedAt: 2, turnInProgress: false });
    await db.close();
    const again = new TurnTimersStore(new Level(dir));
    expect(await again.read()).toEqual({ lastMessageAt: 3, lastDebriefAt: 4, turnStartedAt: 2, turnInProgress: false });
  });

  it('reads the timers an older Vigil kept in the budget ledger until it writes its own', async () => {
    const { db } = await openDb();
    const legacy = { lastMessageAt: 5, lastDebriefAt: null, turnStartedAt: 5, turnInProgress: true };
    await db.sublevel<string, unknown>(SUBLEVELS.budgetLedger, { valueEncoding: 'json' }).put('turn', legacy);
    const store = new TurnTimersStore(db);
    expect(await store.read()).toEqual(legacy);
    await store.record({ ...legacy, turnInProgress: false });
    expect(await store.read()).toEqual({ ...legacy, turnInProgress: false });
    await db.close();
  });
});
