import { Level } from 'level';
import { MemoryLevel } from 'memory-level';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BudgetLedger } from '../../src/subsystems/budget/budget-ledger.js';
import type { VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';
import { mountScratchDisk, type ScratchDisk } from './scratch-disk.js';

let disk: ScratchDisk | null = null;
let h: RuntimeHarness | undefined;
afterEach(async () => {
  await h?.runtime.stop().catch(() => undefined);
  await (h?.db as { close?: () => Promise<void> } | undefined)?.close?.().catch(() => undefined);
  h = undefined;
  disk?.unmount();
  disk = null;
});

/** A runtime on real LevelDB on a scratch disk, thinking (for money) on every beat about an always-due goal. */
async function startOnDisk(d: ScratchDisk): Promise<{ h: RuntimeHarness; thinker: ScriptedThinker }> {
  const db = new Level(`${d.dir}/db`) as unknown as VigilDb;
  await db.open();
  const thinker = new ScriptedThinker((input) =>
    input.focusGoalId ? [{ type: 'goal_progress', goalId: input.focusGoalId, delta: 0.001 }] : [],
  );
  thinker.costMicroUsd = 10_000;
  const harness = await startRuntime({ db, thinker, config: { checkpointIntervalBeats: 2, dailyBudgetUsd: 100 } });
  harness.runtime.addGoal({ title: 'Never done', dueAt: '2020-01-01T00:00:00.000Z' });
  return { h: harness, thinker };
}

const count = (harness: RuntimeHarness, type: Parameters<RuntimeHarness['ofType']>[0]) => harness.ofType(type).length;

describe('disk faults', () => {
  it('a full disk fails checkpoints and stops thinking (no unrecorded spend); freeing it resumes everything', async () => {
    disk = mountScratchDisk(16);
    const started = await startOnDisk(disk);
    h = started.h;
    const { thinker } = started;
    // Real LevelDB on a real disk: each synced write takes real time, so beat until the work is visibly done.
    await beatUntil(h, () => thinker.calls.length >= 3 && count(h!, 'checkpoint.created') >= 1);

    disk.fill();
    // LevelDB reports ENOSPC when it gets to write, which is real I/O time, not simulated time: beat until it has.
    await beatUntil(h, () => count(h!, 'budget.ledger_failed') === 1 && count(h!, 'checkpoint.failed') >= 1);
    expect(h.ofType('think.failed').map((e) => e.code)).toContain('BUDGET_LEDGER_UNAVAILABLE');
    expect(count(h, 'budget.ledger_failed')).toBe(1);
    const callsWhileFull = thinker.calls.length;
    const beatsWhileFull = h.runtime.status().beatCount;
    await h.advance(5000);
    expect(thinker.calls.length).toBe(callsWhileFull);
    expect(h.runtime.status().beatCount).toBeGreaterThan(beatsWhileFull);

    disk.free();
    const created = count(h, 'checkpoint.created');
    await beatUntil(
      h,
      () =>
        count(h!, 'budget.ledger_recovered') === 1 &&
        thinker.calls.length > callsWhileFull &&
        count(h!, 'checkpoint.created') > created,
    );
    // Stopped, nothing is in flight: what the budget counts is exactly what the ledger holds.
    await h.runtime.stop();
    const ledgerSpent = (await new BudgetLedger(h.db).readDay('2026-03-01')).spentMicroUsd;
    expect(h.runtime.budgetStatus().spentTodayUsd).toBeCloseTo(ledgerSpent / 1_000_000, 9);
  });

  // A read-only remount is refused while LevelDB holds its files open for writing, so a read-only disk is simulated
  // at the store boundary: every write LevelDB would make fails with EROFS, as the kernel would report it.
  it('a read-only store fails the same way and recovers when writable again', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const readOnly = failWritesAtStoreBoundary(db, 'EROFS: read-only file system');
    const thinker = new ScriptedThinker((input) =>
      input.focusGoalId ? [{ type: 'goal_progress', goalId: input.focusGoalId, delta: 0.001 }] : [],
    );
    thinker.costMicroUsd = 10_000;
    h = await startRuntime({ db, thinker, config: { checkpointIntervalBeats: 2, dailyBudgetUsd: 100 } });
    h.runtime.addGoal({ title: 'Never done', dueAt: '2020-01-01T00:00:00.000Z' });
    await h.advance(3000);
    readOnly.on();
    await h.advance(4000);
    expect(count(h, 'budget.ledger_failed')).toBe(1);
    expect(count(h, 'checkpoint.failed')).toBeGreaterThanOrEqual(1);
    await expect(h.runtime.send({ text: 'hello?' })).rejects.toMatchObject({ code: 'STORE_IO' });
    const calls = thinker.calls.length;
    await h.advance(4000);
    expect(thinker.calls.length).toBe(calls);
    readOnly.off();
    await h.advance(4000);
    expect(count(h, 'budget.ledger_recovered')).toBe(1);
    expect(thinker.calls.length).toBeGreaterThan(calls);
    expect(count(h, 'checkpoint.created')).toBeGreaterThanOrEqual(2);
  });
});

/** Beats (1 s of simulated time at a time) until `done`, waiting on real I/O in between; bounded in real time. */
async function beatUntil(harness: RuntimeHarness, done: () => boolean): Promise<void> {
  await vi.waitFor(
    async () => {
      await harness.advance(1000);
      expect(done()).toBe(true);
    },
    { timeout: 15_000, interval: 10 },
  );
}

/** Makes every write of `db` (and its sublevels, which write through it) fail while on. */
function failWritesAtStoreBoundary(db: VigilDb, message: string): { on(): void; off(): void } {
  let failing = false;
  const target = db as unknown as Record<'_put' | '_del' | '_batch', (...args: unknown[]) => Promise<void>>;
  for (const method of ['_put', '_del', '_batch'] as const) {
    const original = target[method].bind(db);
    target[method] = (...args: unknown[]) => {
      if (!failing) return original(...args);
      return Promise.reject(Object.assign(new Error(message), { code: 'LEVEL_IO_ERROR' }));
    };
  }
  return { on: () => (failing = true), off: () => (failing = false) };
}
