import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { MemoryLevel } from 'memory-level';
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetLedger } from '../../../src/subsystems/budget/budget-ledger.js';
import { cacheReadShare } from '../../../src/subsystems/budget/cache-share.js';
import type { VigilDb } from '../../../src/subsystems/store/vigil-db.js';
import { ZERO_USAGE } from '../../../src/subsystems/thinking/thinker.schema.js';

const charge = (costMicroUsd: number, dayKey = '2026-03-10') => ({
  at: 1,
  dayKey,
  kind: 'think' as const,
  model: 'm',
  costMicroUsd,
  usage: ZERO_USAGE,
});
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('BudgetLedger', () => {
  it('keeps a running total per day, charges applied in call order', async () => {
    const ledger = new BudgetLedger(new MemoryLevel());
    await Promise.all([ledger.charge(charge(100)), ledger.charge(charge(250)), ledger.charge(charge(5, '2026-03-11'))]);
    expect(await ledger.readDay('2026-03-10')).toEqual({
      dayKey: '2026-03-10',
      spentMicroUsd: 350,
      topUpMicroUsd: 0,
      charges: 2,
      inputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect((await ledger.readDay('2026-03-11')).spentMicroUsd).toBe(5);
    expect((await ledger.readDay('2026-03-12')).spentMicroUsd).toBe(0);
  });

  it("sums the day's prompt tokens by kind, tells the newest day without a read, and reads older records as zero tokens", async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const ledger = new BudgetLedger(db);
    const usage = (inputTokens: number, cacheReadTokens: number, cacheWriteTokens: number) => ({
      inputTokens,
      outputTokens: 9,
      cacheReadTokens,
      cacheWriteTokens,
    });
    await ledger.charge({ ...charge(10), usage: usage(100, 0, 2000) });
    await ledger.charge({ ...charge(10), kind: 'task', usage: usage(50, 2000, 0) });
    expect(ledger.knownDay('2026-03-10')).toMatchObject({
      inputTokens: 150,
      cacheReadTokens: 2000,
      cacheWriteTokens: 2000,
      charges: 2,
    });
    expect(cacheReadShare(ledger.knownDay('2026-03-10'))).toBe(0.4819); // 2000 of 4150 prompt tokens
    // Another day, not yet seen: nothing spent on it as far as this ledger knows.
    expect(ledger.knownDay('2026-03-11')).toMatchObject({ charges: 0, inputTokens: 0 });
    expect(cacheReadShare(ledger.knownDay('2026-03-11'))).toBe(0);

    // A day record written before tokens were counted.
    const raw = db.sublevel<string, unknown>('budget-ledger', { valueEncoding: 'json' });
    await raw.put('day:2026-03-09', { dayKey: '2026-03-09', spentMicroUsd: 7, topUpMicroUsd: 0, charges: 1 });
    const reopened = new BudgetLedger(db);
    expect(await reopened.readDay('2026-03-09')).toMatchObject({
      spentMicroUsd: 7,
      inputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    // At boot the runtime reads today: that is what knownDay then tells.
    await reopened.readDay('2026-03-10');
    expect(reopened.knownDay('2026-03-10').cacheReadTokens).toBe(2000);
  });

  it('persists spend, top-up, wake signal and cap across a reopen of the on-disk store', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vigil-ledger-'));
    dirs.push(dir);
    const first = new Level(dir) as unknown as VigilDb;
    const a = new BudgetLedger(first);
    await a.charge(charge(4000));
    await a.topUp('2026-03-10', 2000, 77);
    await a.setCap({ capMicroUsd: 9000, configuredCapMicroUsd: 5000 });
    await first.close();

    const second = new Level(dir) as unknown as VigilDb;
    const b = new BudgetLedger(second);
    expect(await b.readDay('2026-03-10')).toMatchObject({ spentMicroUsd: 4000, topUpMicroUsd: 2000 });
    expect(await b.readWakeSignal()).toEqual({ requestedAt: 77, reason: 'top_up' });
    expect(await b.readCap(5000)).toBe(9000);
    // A changed configuration wins over an old run-time cap.
    expect(await b.readCap(7000)).toBe(7000);
    await b.clearWakeSignal();
    expect(await b.readWakeSignal()).toBeNull();
    await second.close();
  });

  it('writes each charge and its day total in one synced batch', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const batches: Array<{ ops: unknown[]; options: unknown }> = [];
    const original = db.batch.bind(db) as (ops: unknown[], options?: unknown) => Promise<void>;
    (db as unknown as { batch: unknown }).batch = (ops: unknown[], options?: unknown) => {
      batches.push({ ops, options });
      return original(ops, options);
    };
    await new BudgetLedger(db).charge(charge(10));
    expect(batches).toHaveLength(1);
    expect(batches[0]!.ops).toHaveLength(2);
    expect(batches[0]!.options).toMatchObject({ sync: true });
  });

  it('prunes days before the oldest kept one', async () => {
    const ledger = new BudgetLedger(new MemoryLevel());
    await ledger.charge(charge(1, '2026-01-01'));
    await ledger.charge(charge(2, '2026-03-10'));
    await ledger.prune('2026-02-01');
    expect((await ledger.readDay('2026-01-01')).spentMicroUsd).toBe(0);
    expect((await ledger.readDay('2026-03-10')).spentMicroUsd).toBe(2);
  });
});
