import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import type { VigilDb } from '../../../src/subsystems/store/vigil-db.js';
import { ToolCallLog } from '../../../src/subsystems/tools/tool-call-log.js';

const intent = (i: number) => ({ callId: `c${i}`, turnId: 't', name: 'mcp__s__t', args: { i }, at: i, idempotent: false });
const result = { ok: true, durationMs: 1, resultBytes: 2, text: 'ok' };

describe('ToolCallLog', () => {
  it('keeps the newest N calls, pruning in the batch that adds, across a reopen', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const log = await ToolCallLog.open(db, 3);
    for (let i = 1; i <= 5; i++) await log.intent(intent(i), []);
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
});
