import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayKeyIn } from '../../src/actors/budget/budget-calendar.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { BudgetLedger } from '../../src/subsystems/budget/budget-ledger.js';
import { CheckpointStore } from '../../src/subsystems/checkpoint/checkpoint.store.js';
import { vigilDbLocation, type VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';

let dataDir: string;
const started: DaemonProcess[] = [];
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'vigil-budget-e2e-'));
});
afterAll(async () => {
  for (const daemon of started) daemon.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

// Every offline think costs a tenth of a cent, so thinking shows up in the ledger at once.
const ENV = { ...FAST_ENV, VIGIL_OFFLINE_COST_USD: '0.001', VIGIL_DAILY_BUDGET_USD: '100' };

async function withDb<T>(fn: (db: VigilDb) => Promise<T>): Promise<T> {
  const db = new Level(vigilDbLocation(dataDir)) as unknown as VigilDb;
  await db.open();
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

const spentToday = () =>
  withDb(async (db) => (await new BudgetLedger(db).readDay(dayKeyIn('UTC', Date.now()))).spentMicroUsd);

describe('vigil run: money spent survives kill -9', () => {
  it('never lowers spent today across repeated kills right after thinking', async () => {
    // Due goals make the agent think on every beat.
    const runtime = await createRuntime({ config: { dataDir }, clock: createSimulatedClock(Date.now()) });
    runtime.start();
    for (let i = 0; i < 20; i += 1)
      runtime.addGoal({ title: `Chore ${i}`, dueAt: new Date(Date.now() - 60_000).toISOString() });
    await runtime.stop();

    let before = 0;
    for (let round = 0; round < 3; round += 1) {
      const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], ENV);
      started.push(daemon);
      await daemon.waitFor((l) => l.msg === 'gateway listening', 20_000, 'gateway listening');
      await daemon.waitFor(
        () => daemon.lines.filter((l) => l.msg === 'checkpoint.created').length >= 1 + round,
        20_000,
        'a checkpoint',
      );
      daemon.kill('SIGKILL');
      expect(await daemon.exited).toBe('SIGKILL');
      const after = await spentToday();
      expect(after).toBeGreaterThan(before);
      before = after;
    }

    // The restarted runtime's own budget starts from the ledger: its final checkpoint says so.
    const last = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], ENV);
    started.push(last);
    await last.waitFor((l) => l.msg === 'gateway listening');
    last.kill('SIGTERM');
    expect(await last.exited).toBe(0);
    const final = await withDb(async (db) => {
      const store = new CheckpointStore(db, createSimulatedClock(Date.now()));
      await store.open();
      const [meta] = await store.list({ limit: 1 });
      return store.load(meta!.id);
    });
    expect(final.actors.budget.spentTodayMicroUsd).toBeGreaterThanOrEqual(before);
  });
});
