/** The think trace store on on-disk LevelDB, and the pure trace builder: totals, content, retention, ids as keys. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ThinkTrace } from '../../../src/protocol/think-trace.schema.js';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import { createIdFactory } from '../../../src/shared/ids.js';
import { openVigilDb, type VigilDb } from '../../../src/subsystems/store/vigil-db.js';
import type { ThinkResult } from '../../../src/subsystems/thinking/thinker.schema.js';
import { buildThinkTrace, type SettledThink } from '../../../src/subsystems/traces/think-trace-builder.js';
import { retention, ThinkTraceStore } from '../../../src/subsystems/traces/think-trace-store.js';
import { userMessageInput } from '../../fixtures/think-input.fixture.js';

const NOW = Date.parse('2026-03-01T08:00:00Z');
const DAY = 86_400_000;
const SECRET = 'the vault code is 4711';

const call = (input: number, output: number, read: number, write: number, costUsd: number) => ({
  model: 'm',
  startedAt: NOW,
  durationMs: 5,
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: read,
  cacheWriteTokens: write,
  costUsd,
  retries: 0,
  stopReason: 'end_turn',
});

function result(): ThinkResult {
  return {
    model: 'm',
    actions: [],
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costMicroUsd: 0,
    trace: {
      calls: [call(100, 20, 3000, 0, 0.0005), call(40, 5, 3000, 10, 0.0003)],
      toolCalls: [{ callId: 'call-1', name: 'mcp__s__t', startedAt: NOW, durationMs: 3, ok: true, resultBytes: 12 }],
      sections: [
        { name: 'tools', tokens: 900, cached: true, text: '[tools]' },
        { name: 'pending_messages', tokens: 20, text: SECRET },
      ],
      stopReason: 'end_turn',
      content: {
        system: 'sys',
        messages: [
          { role: 'user', text: SECRET },
          { role: 'assistant', text: 'ok' },
        ],
      },
    },
  };
}

const settled = (overrides: Partial<SettledThink> = {}): SettledThink => ({
  input: userMessageInput(SECRET, NOW),
  model: 'm',
  startedAt: NOW,
  durationMs: 12,
  result: result(),
  ...overrides,
});

describe('buildThinkTrace', () => {
  it('totals the calls, keeps ids, turns and reason, and drops every text without content', () => {
    const trace = buildThinkTrace('th-1', settled(), false);
    expect(trace).toMatchObject({
      id: 'th-1',
      turnIds: ['t-1'],
      reason: 'user_message',
      inputTokens: 140,
      outputTokens: 25,
      cacheReadTokens: 6000,
      cacheWriteTokens: 10,
      stopReason: 'end_turn',
    });
    expect(trace.costUsd).toBeCloseTo(0.0008, 12);
    expect(trace.sections).toEqual([
      { name: 'tools', tokens: 900, cached: true },
      { name: 'pending_messages', tokens: 20 },
    ]);
    expect(trace).not.toHaveProperty('content');
    expect(JSON.stringify(trace)).not.toContain(SECRET);
  });

  it("keeps the sections' text and the transcript with content", () => {
    const trace = buildThinkTrace('th-1', settled(), true);
    expect(trace.sections[1]).toEqual({ name: 'pending_messages', tokens: 20, text: SECRET });
    expect(trace.content?.messages[0]?.text).toBe(SECRET);
  });

  it('names the stop of a failed think: aborted, or error with its code', () => {
    expect(
      buildThinkTrace('a', settled({ error: { code: 'THINK_ABORTED', message: 'preempted' } }), false),
    ).toMatchObject({ stopReason: 'aborted', error: { code: 'THINK_ABORTED' } });
    expect(
      buildThinkTrace('b', settled({ result: null, error: { code: 'THINK_FAILED', message: 'down' } }), false),
    ).toMatchObject({ stopReason: 'error', calls: [], costUsd: 0, model: 'm' });
    expect(
      buildThinkTrace('c', settled({ error: { code: 'BUDGET_LEDGER_UNAVAILABLE', message: 'disk full' } }), false)
        .stopReason,
    ).toBe('error');
  });
});

describe('ThinkTraceStore on disk', () => {
  let dir: string;
  let db: VigilDb;
  let clock = createSimulatedClock(NOW);
  let ids = createIdFactory(clock, 'th-');
  beforeEach(async () => {
    clock = createSimulatedClock(NOW);
    ids = createIdFactory(clock, 'th-');
    dir = await mkdtemp(join(tmpdir(), 'vigil-traces-'));
    db = await openVigilDb(dir);
  });
  afterEach(async () => {
    await db.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  const traceAt = (at: number, content = false): ThinkTrace => {
    clock.set(at);
    return buildThinkTrace(ids.next(), settled({ startedAt: at }), content);
  };

  it('stores, lists newest first and gets a trace; keys are ids, never user text', async () => {
    const store = await ThinkTraceStore.open(db);
    const a = traceAt(NOW, true);
    const b = traceAt(NOW + 1000, true);
    await store.add(a, NOW);
    await store.add(b, NOW + 1000);
    const listed = await store.list();
    expect(listed.map((t) => t.id)).toEqual([b.id, a.id]);
    expect(listed[0]).not.toHaveProperty('sections');
    expect(await store.get(a.id)).toEqual(a);
    for await (const key of db.keys()) expect(key).not.toContain('vault');
  });

  it('keeps the newest maxCount, deleting the oldest in the batch that adds', async () => {
    const store = await ThinkTraceStore.open(db, retention(2, 0));
    const traces = [0, 1, 2, 3].map((i) => traceAt(NOW + i * 1000));
    for (const trace of traces) await store.add(trace, clock.now());
    expect((await store.list()).map((t) => t.id)).toEqual([traces[3]!.id, traces[2]!.id]);
    await expect(store.get(traces[0]!.id)).rejects.toMatchObject({ code: 'THINK_NOT_FOUND' });
    let keys = 0;
    for await (const _ of db.keys()) keys += 1;
    // Two traces, a summary and a detail each: nothing of the pruned ones is left.
    expect(keys).toBe(4);
  });

  it('drops traces older than the age limit when it adds one, and reindexes what is on disk when reopened', async () => {
    let store = await ThinkTraceStore.open(db, retention(100, 7));
    const old = traceAt(NOW);
    const recent = traceAt(NOW + 5 * DAY);
    await store.add(old, clock.now());
    await store.add(recent, clock.now());
    store = await ThinkTraceStore.open(db, retention(100, 7));
    expect(store.size).toBe(2);
    expect(store.newestId()).toBe(recent.id);
    const latest = traceAt(NOW + 8 * DAY);
    await store.add(latest, clock.now());
    expect((await store.list()).map((t) => t.id)).toEqual([latest.id, recent.id]);
  });

  it('with readIdsAfter, reads only the newest id at open and the others before the first add, which prunes by them', async () => {
    let store = await ThinkTraceStore.open(db, retention(3, 0));
    const traces = [0, 1, 2].map((i) => traceAt(NOW + i * 1000));
    for (const trace of traces) await store.add(trace, clock.now());
    let release!: () => void;
    const listening = new Promise<void>((resolve) => (release = resolve));
    store = await ThinkTraceStore.open(db, retention(3, 0), undefined, { readIdsAfter: listening });
    expect(store.newestId()).toBe(traces[2]!.id);
    expect(store.size).toBe(0);
    const latest = traceAt(NOW + 5000);
    let added = false;
    const adding = store.add(latest, clock.now()).then(() => (added = true));
    // Two reads of the store's own come back meanwhile: the add is held by the promise, not by the disk.
    await store.list();
    await store.list();
    expect(added).toBe(false);
    release();
    await adding;
    expect(store.size).toBe(3);
    expect((await store.list()).map((t) => t.id)).toEqual([latest.id, traces[2]!.id, traces[1]!.id]);
    await expect(store.get(traces[0]!.id)).rejects.toMatchObject({ code: 'THINK_NOT_FOUND' });
  });

  it('pages back with before and honours limit', async () => {
    const store = await ThinkTraceStore.open(db);
    const traces = [0, 1, 2, 3, 4].map((i) => traceAt(NOW + i));
    for (const trace of traces) await store.add(trace, clock.now());
    expect((await store.list({ limit: 2 })).map((t) => t.id)).toEqual([traces[4]!.id, traces[3]!.id]);
    expect((await store.list({ before: traces[3]!.id, limit: 2 })).map((t) => t.id)).toEqual([
      traces[2]!.id,
      traces[1]!.id,
    ]);
  });

  it('tells listeners each trace once stored; a throwing listener neither fails the write nor silences the others', async () => {
    const errors: unknown[] = [];
    const store = await ThinkTraceStore.open(db, undefined, (err) => errors.push(err));
    const seen: string[] = [];
    store.onTrace(() => {
      throw new Error('exporter down');
    });
    const stop = store.onTrace((trace) => seen.push(trace.id));
    const first = traceAt(NOW);
    await store.add(first, NOW);
    stop();
    await store.add(traceAt(NOW + 1), NOW + 1);
    expect(seen).toEqual([first.id]);
    expect(errors).toHaveLength(2);
  });

  it('fails a write on a closed database with a store error', async () => {
    const store = await ThinkTraceStore.open(db);
    await db.close();
    await expect(store.add(traceAt(NOW), NOW)).rejects.toMatchObject({ code: 'RUNTIME_STOPPED' });
  });
});
