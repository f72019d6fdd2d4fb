import { describe, expect, it } from 'vitest';
import type { ConversationMessage } from '../../../src/protocol/conversation.schema.js';
import { buildBudgetedPrompt } from '../../../src/subsystems/thinking/prompt-budget.js';
import { stateMessage } from '../../../src/subsystems/thinking/anthropic-prompt.js';
import { TokenCalibration } from '../../../src/subsystems/thinking/token-calibration.js';
import { truncateToTokens } from '../../../src/subsystems/thinking/token-truncate.js';
import { estimateTokens } from '../../../src/subsystems/thinking/token-estimate.js';
import type { ThinkInput } from '../../../src/subsystems/thinking/thinker.schema.js';
import { userMessageInput } from '../../fixtures/think-input.fixture.js';

const AT = Date.parse('2026-03-01T10:00:00Z');

function history(count: number, chars = 400): ConversationMessage[] {
  return Array.from({ length: count }, (_, i) => ({
    seq: i + 1,
    turnId: `h-${Math.floor(i / 2)}`,
    role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    text: `entry ${i + 1}: ${'word '.repeat(chars / 5)}`.slice(0, chars),
    at: AT + i * 1000,
    ...(i % 2 === 0 ? { from: 'ada' } : {}),
  }));
}

function input(overrides: Partial<ThinkInput> = {}): ThinkInput {
  return { ...userMessageInput('How far along is the outline?', AT + 60_000), ...overrides };
}

describe('truncateToTokens', () => {
  it('leaves text that fits alone and cuts longer text to the bound with a note', () => {
    const counter = new TokenCalibration();
    expect(truncateToTokens('short', 10, counter)).toBe('short');
    const long = 'é'.repeat(5000);
    const cut = truncateToTokens(long, 200, counter);
    expect(counter.count(cut)).toBeLessThanOrEqual(200);
    expect(cut).toMatch(/ \[…truncated by Vigil: \d+ of 5000 characters shown\]$/);
    expect(cut.startsWith('éé')).toBe(true);
  });

  it('never splits a surrogate pair', () => {
    const cut = truncateToTokens('😀'.repeat(1000), 100, new TokenCalibration());
    expect(cut.replace(/ \[…truncated.*$/, '')).toMatch(/^(😀)+$/u);
  });
});

describe('buildBudgetedPrompt', () => {
  it('keeps the state under the bound whatever the history, keeping the newest entries and showing them oldest first', () => {
    const counter = new TokenCalibration();
    for (const count of [0, 1, 10, 100, 10_000]) {
      const built = buildBudgetedPrompt({
        input: input({
          conversation: { summary: { text: 'They met in March.', throughSeq: 0 }, recent: history(count) },
        }),
        boundTokens: 6000,
        fixedTokens: 2000,
        counter,
      });
      expect(built.tokens).toBeLessThanOrEqual(4000);
      const blocks = built.conversation.reduce((sum, block) => sum + counter.count(block), 0);
      expect(
        blocks + counter.count(built.state) + (built.summary === null ? 0 : counter.count(built.summary)),
      ).toBeLessThanOrEqual(4000);
      // One block an entry, none in the state: the newest shown, oldest first.
      expect(built.conversation).toHaveLength(built.recentShown);
      expect(built.state).not.toMatch(/^- \[\d+\] turn/m);
      const seqs = built.conversation.map((block) =>
        Number(/^(?:<recent_conversation>\n)?- \[(\d+)\] turn/.exec(block)![1]),
      );
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => count - seqs.length + 1 + i));
      expect(built.recentShown + built.recentOmitted).toBe(count);
      if (count > 0) expect(built.recentShown).toBeGreaterThan(0);
      if (count === 10_000)
        expect(built.state).toContain(
          `(${built.recentOmitted} older entries are not shown; the conversation summary covers what came before them)\n</recent_conversation>`,
        );
    }
  });

  it('renders the entries a later think shares with this one byte for byte alike, whatever else changed', () => {
    const counter = new TokenCalibration();
    const build = (recent: ConversationMessage[], pendingText: string, reservedTokens: number) =>
      buildBudgetedPrompt({
        input: input({
          conversation: { summary: null, recent },
          pendingMessages: [{ ...input().pendingMessages[0]!, text: pendingText }],
        }),
        boundTokens: 16_000,
        fixedTokens: 3000,
        reservedTokens,
        counter,
      });
    // Long entries, cut to their share of the bound; the next think has two entries more, another message, and a
    // tool loop that took room.
    const earlier = build(history(4, 8000), 'short', 0);
    const later = build(history(6, 8000), 'a much longer message '.repeat(50), 900);
    expect(earlier.recentOmitted).toBe(0);
    expect(later.conversation.slice(0, earlier.conversation.length)).toEqual(earlier.conversation);
    expect(later.conversation).toHaveLength(6);
    expect(earlier.conversation[0]).toMatch(/\[…truncated by Vigil: \d+ of 8000 characters shown\]/);
  });

  it('cuts an oversized pending message with a note rather than sending it whole', () => {
    const counter = new TokenCalibration();
    const base = input();
    const message = { ...base.pendingMessages[0]!, text: 'y'.repeat(100_000) };
    const built = buildBudgetedPrompt({
      input: input({ pendingMessages: [message] }),
      boundTokens: 8000,
      fixedTokens: 3000,
      counter,
    });
    expect(built.tokens).toBeLessThanOrEqual(5000);
    expect(built.state).toMatch(/\[…truncated by Vigil: \d+ of 100000 characters shown\]/);
  });

  it('puts sections in a fixed order with the recalled memories and the turn under review, and traces each', () => {
    const built = buildBudgetedPrompt({
      input: input({
        conversation: { summary: { text: 'Ada likes short answers.', throughSeq: 4 }, recent: history(6).slice(4) },
        recalledMemories: [
          { id: 'ltm-1', content: 'Ada is writing a book on tides.', source: 'conversation', createdAt: AT },
        ],
        turnUnderReview: {
          startedAt: AT,
          endedAt: AT + 5000,
          messages: history(2),
          toolCalls: [{ name: 'remember', args: '{"content":"x"}', ok: true, at: AT + 10 }],
        },
      }),
      boundTokens: 16_000,
      fixedTokens: 3000,
      counter: new TokenCalibration(),
    });
    const message = built.conversation.join('') + built.state;
    const order = [...message.matchAll(/^<([a-z_]+)>$/gm)].map((m) => m[1]);
    expect(order).toEqual([
      'recent_conversation',
      'heartbeat',
      'affect',
      'working_memory',
      'goals',
      'focus_goal',
      'recalled_memories',
      'turn_under_review',
      'pending_messages',
      'swarm_results',
      'notices',
    ]);
    expect(built.summary).toBe(
      '<conversation_summary through_seq="4">\nAda likes short answers.\n</conversation_summary>',
    );
    expect(built.sections.map((s) => s.name)).toEqual(['summary', ...order]);
    expect(built.sections.filter((s) => s.cached === true).map((s) => s.name)).toEqual([
      'summary',
      'recent_conversation',
    ]);
    // The first user message is exactly its sections, joined.
    expect(
      built.sections
        .slice(1)
        .map((s) => s.text)
        .join('\n\n'),
    ).toBe(message);
    expect(built.sections.every((s) => s.tokens > 0)).toBe(true);
    expect(built.state).toContain(
      '- [ltm-1] conversation, 2026-03-01T10:00:00.000Z: "Ada is writing a book on tides."',
    );
    expect(built.state).toContain('tool remember {"content":"x"} → ok');
    // Entries the review shows are not repeated among the recent turns.
    expect(message.match(/- \[1\] turn/g)).toHaveLength(1);
  });

  it('refuses, naming VIGIL_CONTEXT_TOKENS, a bound the fixed prefix alone overflows', () => {
    expect(() =>
      buildBudgetedPrompt({ input: input(), boundTokens: 4096, fixedTokens: 4090, counter: new TokenCalibration() }),
    ).toThrow(
      expect.objectContaining({
        code: 'CONTEXT_TOO_SMALL',
        message: expect.stringContaining('VIGIL_CONTEXT_TOKENS=4096'),
      }),
    );
  });

  it('renders the unbounded state message exactly as before for a think without a conversation', () => {
    const text = stateMessage(input());
    expect(text).not.toContain('<recent_conversation>');
    expect(text).toContain('<pending_messages>\n- turn ');
  });

  it('is deterministic: equal inputs give equal bytes', () => {
    const args = () => ({
      input: input({ conversation: { summary: null, recent: history(50) } }),
      boundTokens: 7000,
      fixedTokens: 2500,
      counter: new TokenCalibration(),
    });
    expect(buildBudgetedPrompt(args()).state).toBe(buildBudgetedPrompt(args()).state);
  });
});

describe('TokenCalibration', () => {
  it('never counts below the conservative estimate and rises when the API reports more', () => {
    const counter = new TokenCalibration();
    const text = 'some text for the model';
    expect(counter.count(text)).toBeGreaterThanOrEqual(estimateTokens(text));
    counter.observe(1000, 600);
    expect(counter.factor).toBe(1);
    counter.observe(1000, 1500);
    expect(counter.factor).toBeCloseTo(1.575, 5);
    expect(counter.count(text)).toBe(Math.ceil(estimateTokens(JSON.stringify(text)) * 1.575));
  });

  it('forgets an old misfit after a window of observations', () => {
    const counter = new TokenCalibration();
    counter.observe(100, 200);
    for (let i = 0; i < 32; i++) counter.observe(100, 50);
    expect(counter.factor).toBe(1);
  });

  it('shrinks what a prompt shows once calibrated up, so it still fits', () => {
    const counter = new TokenCalibration();
    const args = {
      input: input({ conversation: { summary: null, recent: history(200) } }),
      boundTokens: 6000,
      fixedTokens: 2000,
    };
    const plain = buildBudgetedPrompt({ ...args, counter });
    counter.observe(1000, 2000);
    const calibrated = buildBudgetedPrompt({ ...args, counter });
    expect(calibrated.recentShown).toBeLessThan(plain.recentShown);
    expect(Math.ceil(estimateTokens(JSON.stringify(calibrated.state)) * counter.factor)).toBeLessThanOrEqual(4000);
  });
});
