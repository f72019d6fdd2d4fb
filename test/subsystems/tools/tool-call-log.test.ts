import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import type { VigilDb } from '../../../src/subsystems/store/vigil-db.js';
import { ToolCallLog } from '../../../src/subsystems/tools/tool-call-log.js';

const intent = (i: number) => ({ callId: `c${i}`, turnId: 't', name: 'mcp__s__t', args: { i }, at: i, idempotent: false });
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
});
