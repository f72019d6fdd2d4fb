/**
 * Semantic search wired into the runtime (VIGIL_EMBEDDINGS_URL against a local fake server, the real `openai` SDK):
 * nothing is embedded before the heartbeat runs, then memories get vectors in the background, `memory.search` finds
 * one by meaning, and each request's tokens are charged to the daily budget at the configured price.
 */
import { describe, expect, it } from 'vitest';
import { startFakeEmbeddingsApi, wordsOf } from '../fixtures/fake-embeddings-api.js';
import { settle, useRuntimes } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';

const start = useRuntimes();

/** True when the metrics say no record of either corpus waits for a vector. */
async function idle(metrics: Promise<string>): Promise<boolean> {
  const text = await metrics;
  return (
    text.includes('vigil_embeddings_pending{corpus="memory"} 0') &&
    text.includes('vigil_embeddings_pending{corpus="conversation"} 0')
  );
}

describe('semantic search in the runtime', () => {
  it('embeds a kept memory once the heartbeat runs, finds it by meaning, and charges the tokens to the budget', async () => {
    const api = await startFakeEmbeddingsApi();
    try {
      const thinker = new ScriptedThinker((input) => [
        ...input.pendingMessages.map((m) => ({
          type: 'remember' as const,
          content: m.text,
          salience: 0.9,
          keep: true,
        })),
        ...input.pendingMessages.map((m) => ({ type: 'reply' as const, turnId: m.turnId, text: 'Noted.' })),
      ]);
      const h = await start({
        thinker,
        config: {
          embeddingsUrl: api.url,
          embeddingsModel: 'fake-embed-a',
          // $1,000 per million tokens: a request of 7 tokens costs 7,000 micro-dollars, visible in the day's spend.
          embeddingsPricePerMTok: 1000,
        },
      });
      const { turnId } = await h.runtime.send({ text: 'I drive an old red car to work.' });
      for (let i = 0; i < 50 && !h.ofType('agent.reply').some((e) => e.turnId === turnId); i += 1)
        await h.advance(1_000, 250);
      expect(h.ofType('agent.reply').map((e) => e.turnId)).toContain(turnId);
      // The memory and the conversation's messages (the user's and the reply) are embedded in the background.
      await api.waitForAnswered(1);
      const carTexts = () =>
        api.requests.flatMap((r) => (r.answered ? r.input : [])).filter((t) => t === 'I drive an old red car to work.');
      const done = async () => carTexts().length === 2 && (await idle(h.metrics.text()));
      for (let i = 0; i < 1_000 && !(await done()); i += 1) await settle(5);
      expect(await done()).toBe(true);
      const embedded = api.requests.flatMap((r) => r.input);
      expect(new Set(api.requests.map((r) => r.model))).toEqual(new Set(['fake-embed-a']));

      // Every request's tokens (one a word, as the fake counts them) charged at $1,000 per million.
      const tokens = embedded.reduce((sum, text) => sum + wordsOf(text).length, 0);
      const spentBefore = h.runtime.budgetStatus().spentTodayUsd;
      expect(spentBefore).toBeCloseTo(tokens / 1000);
      const [hit] = await h.runtime.searchMemory({ query: 'automobile' });
      expect(hit?.content).toBe('I drive an old red car to work.');
      // The query's token was charged too.
      expect(h.runtime.budgetStatus().spentTodayUsd).toBeCloseTo(spentBefore + 0.001);
      expect(await h.metrics.text()).toMatch(/vigil_embedding_requests_total\{purpose="query",outcome="ok"\} 1/);
    } finally {
      await api.close();
    }
  });
});
