/** Retention of every append-only record, in simulated time: what each store keeps, what goes, and when a pass runs. */
import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { RetentionKeeper, RETENTION_INTERVAL_MS, type RetentionPolicy } from '../../src/runtime/retention-keeper.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { BudgetLedger } from '../../src/subsystems/budget/budget-ledger.js';
import { CheckpointStore } from '../../src/subsystems/checkpoint/checkpoint.store.js';
import { ConversationLog } from '../../src/subsystems/conversation/conversation-log.js';
import type { VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { SwarmResultLog } from '../../src/subsystems/swarm-results/swarm-result-log.js';
import { ToolCallLog } from '../../src/subsystems/tools/tool-call-log.js';
import type { ToolCallRecord } from '../../src/protocol/tool-call.schema.js';
import { makeCheckpoint } from '../fixtures/checkpoint.fixture.js';
import { startRuntime } from '../fixtures/runtime.fixture.js';

const DAY = 86_400_000;
const NOW = Date.parse('2027-06-15T12:00:00Z');
const POLICY: RetentionPolicy = {
  conversationMaxMessages: 100,
  ledgerChargeDays: 30,
  toolCallRetentionDays: 30,
  timezone: 'America/New_York',
};
const USAGE = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };

/** Every store on one memory-level database, a keeper over them at simulated time NOW. */
async function stores(policy: RetentionPolicy = POLICY) {
  const db = new MemoryLevel() as unknown as VigilDb;
  const clock = createSimulatedClock(NOW);
  const checkpoints = new CheckpointStore(db, clock);
  await checkpoints.open();
  const conversation = new ConversationLog(db);
  await conversation.open();
  const ledger = new BudgetLedger(db);
  const swarmResults = new SwarmResultLog(db);
  const toolCalls = await ToolCallLog.open(db);
  const keeper = new RetentionKeeper(
    { db, checkpoints, conversation, ledger, swarmResults, toolCalls },
    policy,
    clock,
    silentLogger,
  );
  /** Stores a checkpoint taken at `at` whose conversation watermark is `watermark`. */
  const checkpointAt = async (at: number, watermark: number) => {
    const base = makeCheckpoint();
    await checkpoints.save(
      makeCheckpoint({
        id: checkpoints.newId(),
        createdAt: at,
        conversation: { ...base.conversation, watermark, pending: [] },
      }),
      10,
    );
  };
  return { db, clock, checkpoints, conversation, ledger, swarmResults, toolCalls, keeper, checkpointAt };
}

describe('RetentionKeeper', () => {
  it('keeps 30 days of budget charges and 400 days of daily totals, in VIGIL_TIMEZONE days; today is never touched', async () => {
    const s = await stores();
    // Days 0 (today, New York) … 45 back, one charge each, and one day total from 401 days back.
    const dayKey = (daysBack: number) =>
      new Intl.DateTimeFormat('en-CA', { timeZone: POLICY.timezone }).format(NOW - daysBack * DAY);
    for (let back = 0; back <= 45; back += 1) {
      await s.ledger.charge({
        at: NOW - back * DAY,
        dayKey: dayKey(back),
        kind: 'think',
        model: 'm',
        costMicroUsd: 1000 + back,
        usage: USAGE,
      });
    }
    await s.ledger.charge({
      at: NOW - 401 * DAY,
      dayKey: dayKey(401),
      kind: 'think',
      model: 'm',
      costMicroUsd: 7,
      usage: USAGE,
    });
    const report = await s.keeper.runOnce();
    // Charges of the 15 days from 31 to 45 back, and the 401-days-back charge and total.
    expect(report).toMatchObject({ ledger: 15 + 2, compacted: false });
    const charges = await s.db
      .sublevel<string, unknown>('budget-ledger', { valueEncoding: 'json' })
      .keys({ gte: 'charge:', lt: 'charge;' })
      .all();
    expect(charges).toHaveLength(31);
    expect(charges[0]).toMatch(new RegExp(`^charge:${dayKey(30)}:`));
    expect(await s.ledger.readDay(dayKey(0))).toMatchObject({ spentMicroUsd: 1000, charges: 1 });
    // An old day's total outlives its charges: yearly spend stays answerable.
    expect(await s.ledger.readDay(dayKey(45))).toMatchObject({ spentMicroUsd: 1045, charges: 1 });
    expect(await s.ledger.readDay(dayKey(401))).toMatchObject({ spentMicroUsd: 0, charges: 0 });
    expect((await s.keeper.runOnce())?.ledger).toBe(0);
  });

  it('prunes ended tool calls older than the retention, and keeps calls of unknown outcome whatever their age', async () => {
    const s = await stores();
    const call = (callId: string, daysBack: number): ToolCallRecord => ({
      callId,
      name: 'mcp__fixture__echo',
      args: { text: callId },
      at: NOW - daysBack * DAY,
      idempotent: false,
    });
    const result = { ok: true, durationMs: 1, resultBytes: 2, text: 'ok' };
    for (const [id, back, ended] of [
      ['old-done', 40, 'result'],
      ['old-reported', 35, 'reported'],
      ['old-unknown', 60, 'unknown'],
      ['new-done', 2, 'result'],
    ] as const) {
      const record = call(id, back);
      await s.toolCalls.intent(record, []);
      if (ended === 'result') await s.toolCalls.result(record, result, []);
      if (ended === 'reported') await s.toolCalls.reported(record, []);
    }
    expect((await s.keeper.runOnce())?.toolCalls).toBe(2);
    expect((await s.toolCalls.all()).map((r) => r.callId)).toEqual(['old-unknown', 'new-done']);
    // Reopened from disk: the same.
    expect((await (await ToolCallLog.open(s.db)).all()).map((r) => r.callId)).toEqual(['old-unknown', 'new-done']);
  });

  it('forgets swarm results finished an hour before the oldest stored checkpoint, and keeps those a restore may need', async () => {
    const s = await stores();
    await s.checkpointAt(NOW - 3 * 3_600_000, 0);
    const finished = {
      'long-ago': NOW - 5 * 3_600_000,
      'just-before-the-checkpoint': NOW - 3.5 * 3_600_000,
      recent: NOW - 60_000,
    };
    for (const [taskId, finishedAt] of Object.entries(finished))
      await s.swarmResults.record({ taskId, status: 'done', text: 'r', finishedAt });
    expect((await s.keeper.runOnce())?.swarmResults).toBe(1);
    expect((await s.swarmResults.find(Object.keys(finished))).map((r) => r.taskId).sort()).toEqual([
      'just-before-the-checkpoint',
      'recent',
    ]);
  });

  it('keeps the newest VIGIL_CONVERSATION_MAX_MESSAGES messages, never one a stored checkpoint would replay, and none without a checkpoint', async () => {
    const s = await stores();
    for (let i = 1; i <= 300; i += 1)
      await s.conversation.append({ turnId: `t-${i}`, role: 'user', text: `message ${i}`, at: NOW });
    // No checkpoint: a boot would replay the whole log.
    expect((await s.keeper.runOnce())?.conversation).toBe(0);
    // The oldest checkpoint replays after seq 150: nothing at or above 151 may go, though only 100 are to be kept.
    await s.checkpointAt(NOW - 2 * DAY, 150);
    await s.checkpointAt(NOW - DAY, 290);
    s.clock.increment(RETENTION_INTERVAL_MS);
    expect((await s.keeper.runOnce())?.conversation).toBe(150);
    expect((await s.conversation.readAfter(0, 1))[0]?.seq).toBe(151);
    // Once the old checkpoint is gone, the newest 100 are what is kept.
    await s.checkpoints.prune(1);
    expect((await s.keeper.runOnce())?.conversation).toBe(50);
    expect(await s.conversation.count()).toBe(100);
    expect((await s.conversation.readLast(1))[0]?.seq).toBe(300);
    // Seqs go on above the highest ever issued after a reopen.
    const reopened = new ConversationLog(s.db);
    await reopened.open();
    expect((await reopened.append({ turnId: 't-301', role: 'user', text: 'next', at: NOW })).seq).toBe(301);
  });

  it('prunes a restore archive once its newest message falls below the cut', async () => {
    const s = await stores({ ...POLICY, conversationMaxMessages: 100 });
    for (let i = 1; i <= 150; i += 1)
      await s.conversation.append({ turnId: `t-${i}`, role: 'user', text: `message ${i}`, at: NOW });
    await s.conversation.archiveAfter(120, 'restore-a');
    for (let i = 1; i <= 200; i += 1)
      await s.conversation.append({ turnId: `u-${i}`, role: 'user', text: `again ${i}`, at: NOW });
    await s.checkpointAt(NOW - DAY, 350);
    // Live: 1..120 and 151..350 (320 entries); keep 100 → cut at 250; the archive (121..150) lies below it.
    expect((await s.keeper.runOnce())?.conversation).toBe(220 + 30);
    expect(await s.conversation.listArchives()).toEqual([]);
    expect(await s.conversation.readArchive('restore-a')).toEqual([]);
  });
});

/** Lets a pass started on a beat finish: it reads checkpoints through zlib's thread pool, so it may take real ticks. */
async function until(check: () => Promise<boolean>, settle: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the retention pass did not finish within 10 s of real time');
    await settle();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('RetentionKeeper in a runtime', () => {
  it('runs on the first beat, then again only an hour of simulated time later', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const ledger = new BudgetLedger(db);
    const h = await startRuntime({ db });
    const oldDay = new Date(h.clock.now() - 40 * DAY).toISOString().slice(0, 10);
    const oldCharge = () =>
      ledger.charge({
        at: h.clock.now() - 40 * DAY,
        dayKey: oldDay,
        kind: 'think',
        model: 'm',
        costMicroUsd: 5,
        usage: USAGE,
      });
    const chargesOf = (day: string) =>
      db
        .sublevel<string, unknown>('budget-ledger', { valueEncoding: 'json' })
        .keys({ gte: `charge:${day}`, lt: `charge:${day};` })
        .all();
    await oldCharge();
    await h.advance(1000);
    await until(async () => (await chargesOf(oldDay)).length === 0, h.settle);
    // Half an hour later a pass is not due: an old charge written now stays.
    await oldCharge();
    await h.advance(30 * 60_000, 60_000);
    await h.settle();
    expect(await chargesOf(oldDay)).toHaveLength(1);
    await h.advance(31 * 60_000, 60_000);
    await until(async () => (await chargesOf(oldDay)).length === 0, h.settle);
    await h.stop();
  });
});
