/**
 * The conversation in every prompt (real SDK, fake Messages API): recent turns and a rolling summary, every request
 * under VIGIL_CONTEXT_TOKENS as measured by the same conservative estimator, the summary kept across kill -9, its
 * updates charged to the ledger, and a debrief shown the turn it validates.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SUMMARY_INSTRUCTIONS } from '../../src/subsystems/thinking/anthropic-summary.js';
import { estimateTokens } from '../../src/subsystems/thinking/token-estimate.js';
import type { ConversationSummaryKeeper } from '../../src/subsystems/summary/conversation-summary.js';
import { BudgetLedger } from '../../src/subsystems/budget/budget-ledger.js';
import {
  firstUserText,
  pendingTurnIds,
  startFakeMessagesApi,
  toolUse,
  type FakeBlock,
  type FakeMessagesApi,
  type RecordedRequest,
} from '../fixtures/fake-messages-api.js';
import { answerLikeAModel, filler, isSummaryRequest } from '../fixtures/summarising-model.js';
import { startAnthropicRuntime, type AnthropicHarness } from '../faults/anthropic-harness.js';

const BOUND = 6000;
const RECALL_BOUND = 8000;
const FACT = 'The vault code is 4417.';

let api: FakeMessagesApi;
let h: AnthropicHarness | undefined;
/** Blocks a think's answer adds after its replies (a test may script one tool call). */
let extraBlocks: () => FakeBlock[] = () => [];
beforeEach(async () => {
  extraBlocks = () => [];
  api = await startFakeMessagesApi();
  answerEveryRequest(api);
});
afterEach(async () => {
  await h?.runtime.stop().catch(() => undefined);
  h = undefined;
  await api.close();
});

const systemText = (request: RecordedRequest): string =>
  (request.body?.system ?? []).map((b: { text: string }) => b.text).join('\n');

/** Every request answered from what it is sent (`answerLikeAModel`), a think's answer with `extraBlocks` added. */
function answerEveryRequest(fake: FakeMessagesApi): void {
  for (let i = 0; i < 1000; i++)
    fake.enqueue({ kind: 'respond', respond: (request) => answerLikeAModel(request, () => extraBlocks()) });
}

/** The runtime's summary keeper (test access to wait for its background update). */
function keeperOf(harness: AnthropicHarness): ConversationSummaryKeeper {
  return (harness.runtime as unknown as { core: { parts: { summary: ConversationSummaryKeeper } } }).core.parts.summary;
}

/** Sends `text`, runs until its turn has its reply, then waits for the summary update a think may have started. */
async function exchange(harness: AnthropicHarness, textToSend: string): Promise<string> {
  const { turnId } = await harness.runtime.send({ text: textToSend });
  await vi.waitFor(
    async () => {
      await harness.runFor(100);
      expect(harness.ofType('agent.reply').some((e) => e.turnId === turnId)).toBe(true);
    },
    { timeout: 20_000, interval: 1 },
  );
  await keeperOf(harness).idle();
  return turnId;
}

describe('the conversation in every prompt', () => {
  it('brings a fact told 40 long messages earlier to a late think through the summary and the recall of older messages', async () => {
    // A bound with room for the recalled message beside the newest turns (at BOUND the state is overdrawn already,
    // and the recall, fitted first, takes the room of the newest user message).
    h = await startAnthropicRuntime(api, { config: { contextTokens: RECALL_BOUND, dailyBudgetUsd: 100 } });
    await exchange(h, `${FACT} Please keep it in mind. ${filler(0).slice(60)}`);
    for (let n = 1; n <= 40; n++) await exchange(h, filler(n));
    const asked = await exchange(h, 'What is the vault code?');

    const late = api.requests.filter((r) => !isSummaryRequest(r) && pendingTurnIds(r).includes(asked)).at(-1)!;
    // Not among the recent turns (long gone from the window), but in the summary after the cached prefix, and
    // recalled by its words: the fact's own message, not the replies next to it that the index also finds.
    const user = firstUserText(late);
    expect(/<recent_conversation>[\s\S]*?<\/recent_conversation>/.exec(user)![0]).not.toContain('4417');
    const recalled = /<recalled_messages>\n([\s\S]*?)\n<\/recalled_messages>/.exec(user)![1]!;
    expect(recalled).toContain(FACT);
    expect(recalled.split('\n')).toHaveLength(1);
    expect(systemText(late)).toContain(FACT);
    expect(late.body.system.at(-1).text).toContain('<conversation_summary');
    expect(late.body.system.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    // The recent conversation is there too, oldest first, one block an entry, the newest carrying a breakpoint.
    const recent = /<recent_conversation>\n([\s\S]*?)\n<\/recent_conversation>/.exec(firstUserText(late))![1]!;
    const seqs = [...recent.matchAll(/^- \[(\d+)\]/gm)].map((m) => Number(m[1]));
    expect(seqs.length).toBeGreaterThan(0);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const blocks = late.body.messages[0].content as Array<{ text: string; cache_control?: unknown }>;
    expect(blocks).toHaveLength(seqs.length + 1);
    expect(blocks.map((b) => b.cache_control ?? null)).toEqual([
      ...seqs.map((_, i) => (i === seqs.length - 1 ? { type: 'ephemeral' } : null)),
      null,
    ]);
    expect(recent).toContain('Note 40 is about the weather');
  }, 120_000);

  it('keeps every request under VIGIL_CONTEXT_TOKENS over 60 messages of 2,000 characters', async () => {
    h = await startAnthropicRuntime(api, { config: { contextTokens: BOUND, dailyBudgetUsd: 100 } });
    for (let n = 1; n <= 60; n++) await exchange(h, filler(n, 2000));
    // One oversized message: cut with a note, never sent whole.
    const huge = await exchange(h, `Huge: ${'x'.repeat(60_000)}`);

    const thinks = api.requests.filter((r) => !isSummaryRequest(r));
    const summaries = api.requests.filter(isSummaryRequest);
    expect(thinks.length).toBeGreaterThanOrEqual(61);
    expect(summaries.length).toBeGreaterThan(0);
    const sizes = api.requests.map((r) => estimateTokens(r.raw));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(BOUND);
    // The bound is used, not dodged: late prompts are near it.
    expect(estimateTokens(thinks.at(-2)!.raw)).toBeGreaterThan(BOUND * 0.7);
    const hugeRequest = thinks.find((r) => pendingTurnIds(r).includes(huge))!;
    expect(firstUserText(hugeRequest)).toMatch(/\[…truncated by Vigil: \d+ of 60006 characters shown\]/);
    expect(systemText(summaries[0]!)).toBe(SUMMARY_INSTRUCTIONS);
  }, 180_000);

  it('charges each summary update to the budget ledger as kind summary', async () => {
    h = await startAnthropicRuntime(api, { config: { contextTokens: BOUND, dailyBudgetUsd: 100 } });
    for (let n = 1; n <= 12; n++) await exchange(h, filler(n));
    const summaries = api.requests.filter(isSummaryRequest);
    expect(summaries.length).toBeGreaterThan(0);
    const ledger = h.db.sublevel<string, { kind: string; costMicroUsd: number }>('budget-ledger', {
      valueEncoding: 'json',
    });
    const charges = (await ledger.values({ gte: 'charge:', lt: 'charge;' }).all()).map((c) => c.kind);
    expect(charges.filter((kind) => kind === 'summary')).toHaveLength(summaries.length);
    expect(charges.filter((kind) => kind === 'think').length).toBeGreaterThanOrEqual(12);
    // The ledger's day total includes them: the budget is never blind to the summary's cost.
    const day = await new BudgetLedger(h.db).readDay('2026-03-01');
    expect(day.charges).toBe(charges.length);
  }, 120_000);

  it('keeps the summary across kill -9 and shows it to the first think after the restart', async () => {
    h = await startAnthropicRuntime(api, { config: { contextTokens: BOUND, dailyBudgetUsd: 100 } });
    await exchange(h, `${FACT} ${filler(0).slice(40)}`);
    for (let n = 1; n <= 12; n++) await exchange(h, filler(n));
    const before = keeperOf(h).summary();
    expect(before?.text).toContain(FACT);
    await h.crash();

    const { db, clock } = h;
    h = await startAnthropicRuntime(api, { config: { contextTokens: BOUND, dailyBudgetUsd: 100 }, db, clock });
    expect(keeperOf(h).summary()).toEqual(before);
    const sent = api.requests.length;
    await exchange(h, 'Are you back?');
    const first = api.requests.slice(sent).find((r) => !isSummaryRequest(r))!;
    expect(systemText(first)).toContain(FACT);
  }, 120_000);

  it('shows a debrief the turn it validates: its messages, replies and tool calls', async () => {
    h = await startAnthropicRuntime(api, { config: { contextTokens: 16_000, debriefAfterS: 0, dailyBudgetUsd: 100 } });
    // The first think also remembers something: a tool call of the turn, besides its reply.
    extraBlocks = () => {
      extraBlocks = () => [];
      return [toolUse('remember', { content: 'Ada wants the outline first', salience: 0.6 })];
    };
    const turnId = await exchange(h, 'Draft the outline for Ada, please.');
    await vi.waitFor(
      async () => {
        await h!.runFor(100);
        expect(h!.ofType('agent.debrief')).toHaveLength(1);
        expect(api.requests.some((r) => firstUserText(r).includes('reason: debrief'))).toBe(true);
      },
      { timeout: 20_000, interval: 1 },
    );
    const debrief = api.requests.find((r) => firstUserText(r).includes('reason: debrief'))!;
    const review = /<turn_under_review>\n([\s\S]*?)\n<\/turn_under_review>/.exec(firstUserText(debrief))![1]!;
    expect(review).toContain(`turn ${turnId}`);
    expect(review).toContain('Draft the outline for Ada, please.');
    expect(review).toContain(`you replied: "noted (${turnId})"`);
    expect(review).toMatch(/tool remember \{"content":"Ada wants the outline first","salience":0.6\} → ok/);
  }, 60_000);
});
