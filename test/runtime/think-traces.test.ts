/** Think traces through the runtime facade (CONTRACT §10), offline and scripted: one per think, totals, content on and off, retention. */
import { afterEach, describe, expect, it } from 'vitest';
import { ThinkTraceSchema, ThinkTraceSummarySchema, type ThinkTrace } from '../../src/protocol/think-trace.schema.js';
import { OfflineThinker } from '../../src/subsystems/thinking/offline-thinker.js';
import { VigilError } from '../../src/errors.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';

let h: RuntimeHarness | undefined;
afterEach(async () => {
  await h?.runtime.stop().catch(() => undefined);
  h = undefined;
});

/** Sends `text` and lets its think finish. */
async function ask(harness: RuntimeHarness, text: string): Promise<string> {
  const { turnId } = await harness.runtime.send({ text });
  await harness.settle();
  await harness.advance(1000);
  return turnId;
}

describe('think traces (offline thinker)', () => {
  it('records one trace per think: why it ran, its turns, model offline with no calls, sections with tokens and no text', async () => {
    h = await startRuntime({ thinker: new OfflineThinker() });
    const turnId = await ask(h, 'My name is Ada. What is my name?');
    const [summary, ...rest] = await h.runtime.listThinks();
    expect(rest).toEqual([]);
    expect(ThinkTraceSummarySchema.strict().parse(summary)).toEqual(summary);
    expect(summary).toMatchObject({
      turnIds: [turnId],
      reason: 'user_message',
      model: 'offline',
      stopReason: 'end_turn',
      calls: [],
      costUsd: 0,
    });
    expect(summary!.startedAt).toBe(Date.parse('2026-03-01T10:00:00Z'));
    const trace = await h.runtime.getThink(summary!.id);
    expect(ThinkTraceSchema.parse(trace)).toEqual(trace);
    expect(trace.sections.map((s) => s.name)).toEqual(
      expect.arrayContaining(['heartbeat', 'pending_messages', 'working_memory', 'goals']),
    );
    for (const section of trace.sections) {
      expect(section.tokens).toBeGreaterThan(0);
      expect(section).not.toHaveProperty('text');
    }
    expect(trace).not.toHaveProperty('content');
    // Nothing of the user's text reached the trace.
    expect(JSON.stringify(trace)).not.toContain('Ada');
    expect(h.ofType('think.traced')).toMatchObject([{ thinkId: summary!.id, costUsd: 0 }]);
  });

  it("keeps the sections' text and the transcript with traceContent (VIGIL_TRACE_CONTENT=true)", async () => {
    h = await startRuntime({ thinker: new OfflineThinker(), config: { traceContent: true } });
    await ask(h, 'My name is Ada.');
    const [summary] = await h.runtime.listThinks();
    expect(summary).not.toHaveProperty('sections');
    const trace = await h.runtime.getThink(summary!.id);
    const pending = trace.sections.find((s) => s.name === 'pending_messages');
    expect(pending?.text).toContain('My name is Ada.');
    expect(trace.content?.messages[0]).toMatchObject({
      role: 'user',
      text: expect.stringContaining('My name is Ada.'),
    });
    expect(trace.content?.messages[1]?.role).toBe('assistant');
  });

  it('answers THINK_NOT_FOUND for an id it does not keep', async () => {
    h = await startRuntime({ thinker: new OfflineThinker() });
    await expect(h.runtime.getThink('th-nope')).rejects.toMatchObject({
      code: 'THINK_NOT_FOUND',
      data: { id: 'th-nope' },
    });
    await expect(h.runtime.getThink('th-nope')).rejects.toBeInstanceOf(VigilError);
  });

  it('keeps the newest VIGIL_TRACE_MAX_COUNT thinks, pages newest first with before, and prunes older ones as it adds', async () => {
    h = await startRuntime({ thinker: new OfflineThinker(), config: { traceMaxCount: 3 } });
    for (const text of ['one', 'two', 'three', 'four', 'five']) await ask(h, text);
    const traced = h.ofType('think.traced').map((e) => e.thinkId);
    expect(traced).toHaveLength(5);
    expect([...traced].sort()).toEqual(traced);
    const kept = await h.runtime.listThinks();
    expect(kept.map((t) => t.id)).toEqual(traced.slice(2).reverse());
    expect((await h.runtime.listThinks({ limit: 1 })).map((t) => t.id)).toEqual([traced[4]]);
    expect((await h.runtime.listThinks({ before: traced[4]! })).map((t) => t.id)).toEqual([traced[3], traced[2]]);
    await expect(h.runtime.getThink(traced[0]!)).rejects.toMatchObject({ code: 'THINK_NOT_FOUND' });
  });

  it('prunes thinks older than VIGIL_TRACE_MAX_AGE_DAYS in the batch that adds a new one', async () => {
    h = await startRuntime({ thinker: new OfflineThinker(), config: { traceMaxAgeDays: 1 } });
    await ask(h, 'first');
    await h.advance(2 * 86_400_000, 3_600_000);
    await ask(h, 'second');
    const kept = await h.runtime.listThinks();
    expect(kept).toHaveLength(1);
    expect(kept[0]!.id).toBe(h.ofType('think.traced').at(-1)!.thinkId);
  });

  it('hands each stored trace to onThinkTrace listeners (the exporter hook), content included when on', async () => {
    h = await startRuntime({ thinker: new OfflineThinker() });
    const seen: ThinkTrace[] = [];
    const stop = h.runtime.onThinkTrace((trace) => seen.push(trace));
    await ask(h, 'hello');
    stop();
    await ask(h, 'again');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual(await h.runtime.getThink(seen[0]!.id));
  });

  it('keeps traces across a restart, and new ids sort after the old ones', async () => {
    h = await startRuntime({ thinker: new OfflineThinker() });
    await ask(h, 'before');
    const { db, clock } = h;
    await h.stop();
    h = await startRuntime({ thinker: new OfflineThinker(), db, clock });
    await ask(h, 'after');
    const kept = await h.runtime.listThinks();
    expect(kept).toHaveLength(2);
    expect(kept[0]!.id > kept[1]!.id).toBe(true);
  });
});

describe('think traces (scripted thinker)', () => {
  it('traces a failed think with its error, and a thinker without its own trace as one call carrying its usage and cost', async () => {
    const thinker = new ScriptedThinker((input) => {
      if (input.pendingMessages.some((m) => m.text === 'fail'))
        throw new VigilError('THINK_FAILED', 'the scripted think failed');
      return input.pendingMessages.map((m) => ({ type: 'reply' as const, turnId: m.turnId, text: 'ok' }));
    });
    thinker.costMicroUsd = 2500;
    h = await startRuntime({ thinker });
    await ask(h, 'fine');
    const [ok] = await h.runtime.listThinks();
    expect(ok).toMatchObject({
      model: 'scripted',
      stopReason: 'end_turn',
      inputTokens: 100,
      outputTokens: 20,
      costUsd: 0.0025,
    });
    expect(ok!.calls).toHaveLength(1);
    expect(ok).not.toHaveProperty('error');

    await ask(h, 'fail');
    const [failed] = await h.runtime.listThinks({ limit: 1 });
    expect(failed).toMatchObject({
      stopReason: 'error',
      error: { code: 'THINK_FAILED', message: expect.stringContaining('scripted think failed') },
      calls: [],
    });
  });
});
