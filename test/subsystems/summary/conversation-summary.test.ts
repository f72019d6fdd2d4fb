import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConversationMessage } from '../../../src/protocol/conversation.schema.js';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { ConversationLog } from '../../../src/subsystems/conversation/conversation-log.js';
import { openVigilDb, type VigilDb } from '../../../src/subsystems/store/vigil-db.js';
import { ConversationSummaryKeeper, type ChargeSummary } from '../../../src/subsystems/summary/conversation-summary.js';
import { maxSummaryTokens, planSummaryUpdate } from '../../../src/subsystems/summary/summary-policy.js';
import { SUMMARY_VERSIONS_KEPT, SummaryStore } from '../../../src/subsystems/summary/summary-store.js';
import { extractiveSummary } from '../../../src/subsystems/thinking/summary-lines.js';
import { TokenCalibration } from '../../../src/subsystems/thinking/token-calibration.js';

const AT = Date.parse('2026-03-01T10:00:00Z');
let dir: string;
let db: VigilDb;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-summary-'));
  db = await openVigilDb(dir);
});
afterEach(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

const entry = (seq: number, text: string): ConversationMessage => ({
  seq,
  turnId: `t-${seq}`,
  role: seq % 2 === 1 ? 'user' : 'assistant',
  text,
  at: AT + seq,
  ...(seq % 2 === 1 ? { from: 'ada' } : {}),
});
const version = (throughSeq: number, text = `through ${throughSeq}`) => ({
  text,
  throughSeq,
  updatedAt: AT,
  model: 'extractive',
});

describe('SummaryStore', () => {
  it('keeps versions on disk across a reopen, the newest current, pruned to the kept count', async () => {
    const store = new SummaryStore(db);
    expect(await store.latest()).toBeNull();
    for (let seq = 1; seq <= SUMMARY_VERSIONS_KEPT + 5; seq++) await store.put(version(seq * 10));
    await db.close();
    db = await openVigilDb(dir);
    const reopened = new SummaryStore(db);
    expect(await reopened.latest()).toEqual(version((SUMMARY_VERSIONS_KEPT + 5) * 10));
    expect(await reopened.atOrBefore(55)).toBeNull();
    expect(await reopened.atOrBefore(125)).toEqual(version(120));
  });

  it('rolls back to the version a checkpoint saw, or to one an import staged for it', async () => {
    const store = new SummaryStore(db);
    for (const seq of [10, 20, 30]) await store.put(version(seq));
    expect(await store.rollBackTo(25)).toEqual(version(20));
    expect(await store.latest()).toEqual(version(20));
    await store.stage('cp-imported', version(80, 'imported'));
    expect(await store.latest()).toEqual(version(20));
    expect(await store.rollBackTo(80, 'cp-imported')).toEqual(version(80, 'imported'));
  });
});

describe('planSummaryUpdate', () => {
  const counter = new TokenCalibration();

  it('waits while what lies beyond the recent window is small', () => {
    expect(planSummaryUpdate([], 16_000, counter)).toBeNull();
    expect(
      planSummaryUpdate(
        Array.from({ length: 10 }, (_, i) => entry(i + 1, 'short')),
        16_000,
        counter,
      ),
    ).toBeNull();
  });

  it('folds the oldest entries outside the window in, in a chunk that fits one request', () => {
    const tail = Array.from({ length: 100 }, (_, i) => entry(i + 1, 'x'.repeat(2000)));
    const plan = planSummaryUpdate(tail, 6000, counter)!;
    expect(plan.messages[0]!.seq).toBe(1);
    expect(plan.throughSeq).toBe(plan.messages.at(-1)!.seq);
    const chunkTokens = plan.messages.reduce((sum, m) => sum + counter.count(m.text), 0);
    expect(chunkTokens).toBeLessThanOrEqual(3000);
    // The newest entries stay out: the window a prompt shows whole.
    expect(plan.throughSeq).toBeLessThan(100);
  });
});

describe('extractiveSummary', () => {
  it('is deterministic, keeps the oldest facts while it fits, and drops the oldest lines past its bound', () => {
    const request = {
      previous: '',
      messages: [entry(1, 'The vault code is 4417. More text follows.'), entry(2, 'Noted.')],
      maxSummaryTokens: 400,
      contextTokens: 6000,
    };
    const first = extractiveSummary(request);
    expect(first).toEqual(extractiveSummary(request));
    expect(first.text).toContain('- [1] 2026-03-01 user "ada": The vault code is 4417.');
    expect(first.costMicroUsd).toBe(0);
    let previous = first.text;
    for (let seq = 3; seq < 60; seq++)
      previous = extractiveSummary({
        ...request,
        previous,
        messages: [entry(seq, `Entry ${seq} ${'z'.repeat(200)}`)],
      }).text;
    expect(new TokenCalibration().count(previous)).toBeLessThanOrEqual(400);
    expect(previous).toMatch(/^\(entries through seq \d+ dropped for room\)\n/);
    expect(previous).toContain('- [59]');
  });
});

describe('ConversationSummaryKeeper', () => {
  async function keeperOn(summarize = async (r: Parameters<typeof extractiveSummary>[0]) => extractiveSummary(r)) {
    const conversation = new ConversationLog(db);
    await conversation.open();
    const keeper = new ConversationSummaryKeeper({
      store: new SummaryStore(db),
      conversation,
      clock: createSimulatedClock(AT),
      log: silentLogger,
      contextTokens: 6000,
      summarize,
    });
    await keeper.open();
    return { conversation, keeper };
  }

  it('updates in chunks, charging each before storing it, and shows only the entries after its watermark', async () => {
    const { conversation, keeper } = await keeperOn();
    for (let i = 0; i < 40; i++)
      await conversation.append({
        turnId: `t-${i}`,
        role: 'user',
        from: 'ada',
        text: `Message ${i}. ${'w'.repeat(1500)}`,
        at: AT + i,
      });
    const charged: string[] = [];
    const charge: ChargeSummary = async (result) => {
      charged.push(result.model);
    };
    const stored = await keeper.update(charge);
    expect(stored).toBeGreaterThan(0);
    expect(charged).toHaveLength(stored);
    const watermark = keeper.watermark();
    expect(watermark).toBeGreaterThan(0);
    expect(keeper.recent(1000).every((m) => m.seq > watermark)).toBe(true);
    expect(keeper.recent(1000).at(-1)!.seq).toBe(40);
    expect(keeper.summary()!.text).toContain(`- [${watermark}] 2026-03-01 user "ada": Message ${watermark - 1}.`);
    expect(new TokenCalibration().count(keeper.summary()!.text)).toBeLessThanOrEqual(maxSummaryTokens(6000));
  });

  it('stores nothing when the charge cannot be recorded', async () => {
    const { conversation, keeper } = await keeperOn();
    for (let i = 0; i < 40; i++)
      await conversation.append({ turnId: `t-${i}`, role: 'user', from: 'ada', text: 'w'.repeat(1500), at: AT + i });
    await expect(keeper.update(async () => Promise.reject(new Error('ledger down')))).rejects.toThrow('ledger down');
    expect(keeper.summary()).toBeNull();
    expect(await new SummaryStore(db).latest()).toBeNull();
  });

  it('reads each log entry once across thinks, not the whole unsummarised tail every time, and again after a roll-back', async () => {
    const { conversation, keeper } = await keeperOn();
    const readRange = vi.spyOn(conversation, 'readRange');
    const charge: ChargeSummary = async () => undefined;
    let stored = 0;
    for (let i = 0; i < 40; i++) {
      await conversation.append({
        turnId: `t-${i}`,
        role: 'user',
        from: 'ada',
        text: `Message ${i}. ${'w'.repeat(1500)}`,
        at: AT + i,
      });
      stored += await keeper.update(charge);
    }
    expect(stored).toBeGreaterThan(0);
    const entriesRead = async () =>
      (await Promise.all(readRange.mock.results.map((r) => r.value as Promise<ConversationMessage[]>))).reduce(
        (n, m) => n + m.length,
        0,
      );
    expect(await entriesRead()).toBe(40);
    // The same summary as one keeper that read the whole tail at once.
    const watermark = keeper.watermark();
    expect(keeper.summary()!.text).toContain(`- [${watermark}] 2026-03-01 user "ada": Message ${watermark - 1}.`);

    await keeper.rollBackTo(0);
    readRange.mockClear();
    await keeper.update(charge);
    expect(readRange.mock.calls[0]).toEqual([0, 40]);
  });
});
