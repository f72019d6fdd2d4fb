import { MemoryLevel } from 'memory-level';
import { describe, expect, it, vi } from 'vitest';
import type { VigilDb } from '../../../src/subsystems/store/vigil-db.js';
import { ToolCallLog } from '../../../src/subsystems/tools/tool-call-log.js';

const intent = (i: number) => ({
  callId: `c${i}`,
  turnId: 't',
  name: 'mcp__s__t',
  args: { i },
  at: i,
  idempotent: false,
});
const result = { ok: true, durationMs: 1, resultBytes: 2, text: 'ok' };

describe('ToolCallLog', () => {
  it('keeps the newest N calls, pruning ended ones in the batch that adds, across a reopen', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const log = await ToolCallLog.open(db, 3);
    for (let i = 1; i <= 5; i++) {
      await log.intent(intent(i), []);
      if (i < 5) await log.result(intent(i), result, []);
    }
    await log.result(intent(5), result, []);
    expect((await log.all()).map((r) => r.callId)).toEqual(['c3', 'c4', 'c5']);
    expect(await log.get('c5')).toMatchObject({ result });
    const reopened = await ToolCallLog.open(db, 3);
    await reopened.intent(intent(6), []);
    expect((await reopened.all()).map((r) => r.callId)).toEqual(['c4', 'c5', 'c6']);
    // A pruned call's late result is not written back.
    await reopened.result(intent(1), result, []);
    expect((await reopened.all()).map((r) => r.callId)).toEqual(['c4', 'c5', 'c6']);
  });

  it('answers every all() before its first write from what open read (a boot asks twice), and reads again after one', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const log = await ToolCallLog.open(db, 10);
    for (let i = 1; i <= 3; i++) await log.intent(intent(i), []);
    const reopened = await ToolCallLog.open(db, 10);
    const store = db as unknown as { _iterator: () => unknown; _values: () => unknown };
    const walks = [vi.spyOn(store, '_iterator'), vi.spyOn(store, '_values')];
    const reads = () => walks.reduce((sum, walk) => sum + walk.mock.calls.length, 0);
    const first = await reopened.all();
    first.pop();
    expect((await reopened.all()).map((r) => r.callId)).toEqual(['c1', 'c2', 'c3']);
    expect(reads()).toBe(0);
    await reopened.intent(intent(4), []);
    expect((await reopened.all()).map((r) => r.callId)).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(reads()).toBe(1);
  });

  it('never prunes a call of unknown outcome for the count: recovery reads its intent after a crash, until it is reported', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const log = await ToolCallLog.open(db, 2);
    await log.intent(intent(1), []);
    for (let i = 2; i <= 4; i++) {
      await log.intent(intent(i), []);
      await log.result(intent(i), result, []);
    }
    expect((await log.all()).map((r) => r.callId)).toEqual(['c1', 'c4']);
    // After a reopen (a crash), the same; once reported as interrupted it is an ended call like the others.
    const reopened = await ToolCallLog.open(db, 2);
    await reopened.reported(intent(1), []);
    await reopened.intent(intent(5), []);
    expect((await reopened.all()).map((r) => r.callId)).toEqual(['c4', 'c5']);
  });

  it('puts a result in the batch of the next intent asked for in the same tick, synced, and never in one before its intent', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const batches = recordBatches(db);
    const log = await ToolCallLog.open(db);
    await log.intent(intent(1), []);
    // A call's result, then at once the next call's intent (a caller that calls again as soon as it has the result).
    const result1 = log.result(intent(1), result, []);
    const intent2 = log.intent(intent(2), []);
    await Promise.all([result1, intent2]);
    expect(batches).toEqual([
      { sync: true, keys: ['0000000000000001'] },
      { sync: true, keys: ['0000000000000001', '0000000000000002'] },
    ]);
    // A result alone goes at the end of the tick, unsynced; reads wait for it.
    void log.result(intent(2), result, []);
    expect(await log.get('c2')).toMatchObject({ result });
    expect(batches[2]).toEqual({ sync: false, keys: ['0000000000000002'] });
    // Asked for while a batch is in flight: the next batch, in order.
    const intent3 = log.intent(intent(3), []);
    const result3 = log.result(intent(3), result, []);
    const intent4 = log.intent(intent(4), []);
    await Promise.all([intent3, result3, intent4]);
    expect(batches.slice(3)).toEqual([
      { sync: true, keys: ['0000000000000003'] },
      { sync: true, keys: ['0000000000000003', '0000000000000004'] },
    ]);
    expect((await log.all()).map((r) => [r.callId, r.result !== undefined])).toEqual([
      ['c1', true],
      ['c2', true],
      ['c3', true],
      ['c4', false],
    ]);
  });

  it('fails every write of a batch that could not be written, and goes on with the next', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const log = await ToolCallLog.open(db);
    await log.intent(intent(1), []);
    const batch = db.batch.bind(db);
    let failNext = true;
    db.batch = ((ops: never, options: never) => {
      if (!failNext) return batch(ops, options);
      failNext = false;
      return Promise.reject(new Error('disk full'));
    }) as typeof db.batch;
    const result1 = log.result(intent(1), result, []);
    const intent2 = log.intent(intent(2), []);
    await expect(result1).rejects.toMatchObject({ code: 'STORE_IO' });
    await expect(intent2).rejects.toMatchObject({ code: 'STORE_IO' });
    await log.intent(intent(3), []);
    expect((await log.all()).map((r) => r.callId)).toEqual(['c1', 'c3']);
  });
});

/** Records each root batch the log writes: whether synced, and the tool-call keys it puts (journal ops aside). */
function recordBatches(db: VigilDb): Array<{ sync: boolean; keys: string[] }> {
  const seen: Array<{ sync: boolean; keys: string[] }> = [];
  const batch = db.batch.bind(db);
  db.batch = ((ops: Array<{ type: string; key: string }>, options?: { sync?: boolean }) => {
    seen.push({ sync: options?.sync === true, keys: ops.filter((op) => op.type === 'put').map((op) => op.key) });
    return batch(ops as never, options as never);
  }) as typeof db.batch;
  return seen;
}
