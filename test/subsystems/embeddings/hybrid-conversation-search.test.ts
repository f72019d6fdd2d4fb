/**
 * Hybrid conversation search against a local fake embeddings server through the real `openai` SDK, on on-disk
 * LevelDB: the messages the log held at boot and those written later get vectors, a message is found by meaning within
 * the time window, and a down endpoint leaves the lexical search answering.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { NewConversationMessage } from '../../../src/protocol/conversation.schema.js';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { ConversationIndex } from '../../../src/subsystems/conversation/conversation-index.js';
import { ConversationLog } from '../../../src/subsystems/conversation/conversation-log.js';
import { ConversationSearch } from '../../../src/subsystems/conversation/conversation-search.js';
import { followConversationSemantic } from '../../../src/subsystems/embeddings/conversation-semantic.js';
import { EmbeddingsClient } from '../../../src/subsystems/embeddings/embeddings-client.js';
import { SemanticIndex } from '../../../src/subsystems/embeddings/semantic-index.js';
import { VectorStore } from '../../../src/subsystems/embeddings/vector-store.js';
import { openVigilDb } from '../../../src/subsystems/store/vigil-db.js';
import { startFakeEmbeddingsApi } from '../../fixtures/fake-embeddings-api.js';

const AT = Date.parse('2026-03-01T10:00:00Z');
const HOUR = 3_600_000;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

function said(i: number, text: string): NewConversationMessage {
  return { turnId: `t-${i}`, role: 'user', text, from: 'alice', at: AT + i * HOUR };
}

describe('hybrid conversation search', () => {
  it('embeds what the log held at boot and what is written later, and finds a message by meaning in its window', async () => {
    const api = await startFakeEmbeddingsApi();
    cleanups.push(() => api.close());
    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-hybrid-conv-'));
    cleanups.push(() => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })));
    const db = await openVigilDb(dataDir);
    cleanups.push(() => db.close());
    const log = new ConversationLog(db);
    await log.open();
    const small = Array.from({ length: 12 }, (_, k) => said(k + 1, `small talk number ${k + 1} about the weather`));
    await log.appendAll([...small, said(13, 'I finally sold my old car last week.')]);

    const index = new ConversationIndex(log);
    cleanups.push(() => index.stop());
    const search = new ConversationSearch(index, log);
    const semantic = new SemanticIndex({
      store: new VectorStore(db, 'conversation', 'fake-embed-a'),
      embedder: new EmbeddingsClient({ baseURL: api.url, model: 'fake-embed-a', timeoutMs: 5_000 }),
      clock: createSimulatedClock(AT),
      log: silentLogger,
    });
    cleanups.push(() => semantic.stop());
    const following = followConversationSemantic({ log, index, search, semantic, logger: silentLogger });
    index.open();
    await following;
    semantic.startFilling({ canSpend: () => true, charge: () => Promise.resolve() });
    await semantic.settled();
    expect(semantic.size).toBe(13);

    // No word of the query is in the message; its vector is near.
    const [hit] = await search.search({ query: 'automobile', limit: 3 });
    expect(hit?.message).toMatchObject({ seq: 13, text: 'I finally sold my old car last week.' });
    // The vector side keeps to the window too.
    const before = await search.search({ query: 'automobile', limit: 3, window: { before: AT + 13 * HOUR } });
    expect(before.map((h) => h.message.seq)).not.toContain(13);

    await log.appendAll([said(14, 'My physician moved the appointment to Friday.')]);
    await semantic.settled();
    expect(semantic.size).toBe(14);
    expect((await search.search({ query: 'doctor', limit: 1 }))[0]?.message.seq).toBe(14);

    // The endpoint down: the query cannot be embedded, and the lexical ranking answers alone.
    api.down = true;
    const lexical = await search.search({ query: 'weather number 3', limit: 1 });
    expect(lexical[0]?.message.seq).toBe(3);
    expect(await search.search({ query: 'automobile', limit: 3 })).toEqual([]);
  });
});
