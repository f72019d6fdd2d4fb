/**
 * The summary's watermark in checkpoints: a restore goes back to the summary its checkpoint saw, and an export carries
 * that summary, which an import stages until its checkpoint is restored (offline thinker: the extractive summary).
 */
import { describe, expect, it, vi } from 'vitest';
import { CheckpointExportSchema } from '../../src/protocol/checkpoint-transfer.schema.js';
import type { ConversationSummaryKeeper } from '../../src/subsystems/summary/conversation-summary.js';
import { useRuntimes, type RuntimeHarness } from '../fixtures/runtime.fixture.js';

const start = useRuntimes();
const CONFIG = { contextTokens: 4096 };

function keeperOf(h: RuntimeHarness): ConversationSummaryKeeper {
  return (h.runtime as unknown as { core: { parts: { summary: ConversationSummaryKeeper } } }).core.parts.summary;
}

/** Sends `count` long messages, each answered, and lets the summary catch up. */
async function talk(h: RuntimeHarness, count: number, label: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    const { turnId } = await h.runtime.send({ text: `${label} ${i}: ${'the tide came in and went out. '.repeat(40)}` });
    await vi.waitFor(async () => {
      await h.advance(100);
      expect(
        h.ofType('agent.reply').some((e) => e.turnId === turnId) ||
          h.ofType('agent.unanswered').some((e) => e.turnId === turnId),
      ).toBe(true);
    });
    await keeperOf(h).idle();
  }
}

/** A checkpoint taken at the next beat boundary. */
async function checkpointOf(h: RuntimeHarness) {
  const saved = h.runtime.createCheckpoint();
  await h.advance(1500);
  return saved;
}

describe('the conversation summary in checkpoints', () => {
  it('records the summary watermark in a checkpoint and goes back to that summary on restore', async () => {
    const h = await start({ config: CONFIG });
    await talk(h, 20, 'First');
    const seen = keeperOf(h).summary();
    expect(seen?.text).toContain('user "user": First ');
    const saved = await checkpointOf(h);
    const checkpoint = await h.runtime.getCheckpoint(saved.id);
    expect(checkpoint.conversation.summaryThroughSeq).toBe(seen!.throughSeq);

    await talk(h, 20, 'Later');
    expect(keeperOf(h).watermark()).toBeGreaterThan(seen!.throughSeq);
    await h.runtime.restoreCheckpoint(saved.id, { confirm: true });
    expect(keeperOf(h).summary()).toEqual(seen);
    expect(
      keeperOf(h)
        .recent(1000)
        .some((m) => m.text.startsWith('Later')),
    ).toBe(false);
  });

  it('carries the summary in an export, and an import gives it to the agent only when its checkpoint is restored', async () => {
    const a = await start({ config: CONFIG });
    await talk(a, 20, 'Exported');
    const saved = await checkpointOf(a);
    const document = CheckpointExportSchema.parse(
      JSON.parse(JSON.stringify(await a.runtime.exportCheckpoint(saved.id))),
    );
    expect(document.summary?.text).toBe(keeperOf(a).summary()!.text);

    const b = await start({ config: CONFIG });
    await talk(b, 3, 'Other');
    const own = keeperOf(b).summary();
    const imported = await b.runtime.importCheckpoint(document);
    // Staged: the running agent keeps its own summary.
    expect(keeperOf(b).summary()).toEqual(own);
    const stored = await b.runtime.getCheckpoint(imported.id);
    expect(stored.conversation.summaryThroughSeq).toBeGreaterThan(0);

    await b.runtime.restoreCheckpoint(imported.id, { confirm: true });
    expect(keeperOf(b).summary()?.text).toBe(document.summary!.text);
    expect(keeperOf(b).watermark()).toBe(stored.conversation.summaryThroughSeq);
    // The same entries follow the summary on both sides.
    const tail = (h: RuntimeHarness) =>
      keeperOf(h)
        .recent(1000)
        .map((m) => m.text);
    await a.runtime.restoreCheckpoint(saved.id, { confirm: true });
    expect(tail(b)).toEqual(tail(a));
  });
});
