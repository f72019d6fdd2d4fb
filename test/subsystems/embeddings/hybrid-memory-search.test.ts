/**
 * Hybrid memory search against a local fake embeddings server through the real `openai` SDK, on on-disk LevelDB:
 * vectors filled in the background, a query found by meaning alone, a model change re-embedding, a down endpoint or a
 * spent budget leaving the lexical search answering, vectors deleted with their memories, and nothing in plaintext on
 * a sealed store.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import type { VigilLogger } from '../../../src/shared/logger.js';
import { EmbeddingsClient } from '../../../src/subsystems/embeddings/embeddings-client.js';
import type { EmbeddingObserver, EmbeddingSpend } from '../../../src/subsystems/embeddings/embedding-spend.js';
import { SemanticIndex } from '../../../src/subsystems/embeddings/semantic-index.js';
import { VectorStore } from '../../../src/subsystems/embeddings/vector-store.js';
import { LongTermMemory } from '../../../src/subsystems/memory/long-term-memory.js';
import { sealStore } from '../../../src/subsystems/store/store-seal.js';
import { openVigilDb, SUBLEVELS, type VigilDb } from '../../../src/subsystems/store/vigil-db.js';
import { startFakeEmbeddingsApi, type FakeEmbeddingsApi } from '../../fixtures/fake-embeddings-api.js';

const AT = Date.parse('2026-03-01T10:00:00Z');
const KEY = 'a'.repeat(64);

const FACTS = [
  'The user drives an old red car to work.',
  'Backups of the photo library run every Sunday night.',
  'The user prefers green tea in the morning.',
];

const dirs: string[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function spyLogger(): VigilLogger & Record<'info' | 'warn' | 'error' | 'debug', ReturnType<typeof vi.fn>> {
  return { info: vi.fn(), warn: vi.fn(), error: vi.fn(), debug: vi.fn() } as never;
}

/** A budget that records its charges and may be spent. */
function fakeSpend(): EmbeddingSpend & { tokens: number[]; allowed: boolean } {
  const spend = {
    tokens: [] as number[],
    allowed: true,
    canSpend: () => spend.allowed,
    charge: (inputTokens: number) => {
      spend.tokens.push(inputTokens);
      return Promise.resolve();
    },
  };
  return spend;
}

interface Opened {
  db: VigilDb;
  memory: LongTermMemory;
  semantic: SemanticIndex;
  log: ReturnType<typeof spyLogger>;
  clock: ReturnType<typeof createSimulatedClock>;
}

async function openMemory(
  api: FakeEmbeddingsApi,
  dataDir: string,
  options: { model?: string; key?: string; observer?: EmbeddingObserver } = {},
): Promise<Opened> {
  const raw = await openVigilDb(dataDir);
  const { db } = await sealStore(raw, options.key, { closeInner: true });
  const clock = createSimulatedClock(AT);
  const log = spyLogger();
  const model = options.model ?? 'fake-embed-a';
  const semantic = new SemanticIndex({
    store: new VectorStore(db, 'memory', model),
    embedder: new EmbeddingsClient({ baseURL: api.url, model, timeoutMs: 5_000 }),
    clock,
    log,
    batchSize: 2,
    ...(options.observer === undefined ? {} : { observer: options.observer }),
  });
  const memory = new LongTermMemory(db, { semantic });
  await memory.open();
  await memory.whenReady();
  const opened = { db, memory, semantic, log, clock };
  cleanups.push(async () => {
    await memory.stop();
    await db.close();
  });
  return opened;
}

async function close({ memory, db }: Opened): Promise<void> {
  await memory.stop();
  await db.close();
}

async function keepAll(memory: LongTermMemory, facts: readonly string[]): Promise<void> {
  for (const [i, content] of facts.entries())
    await memory.keep({ content, source: 'conversation', salience: 0.6, at: AT + i });
}

async function vectorKeys(db: VigilDb): Promise<string[]> {
  return db.sublevel<string, Uint8Array>(SUBLEVELS.embeddings, { valueEncoding: 'view' }).keys().all();
}

async function setUp(): Promise<{ api: FakeEmbeddingsApi; dataDir: string }> {
  const api = await startFakeEmbeddingsApi();
  cleanups.push(() => api.close());
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-hybrid-'));
  dirs.push(dataDir);
  return { api, dataDir };
}

describe('hybrid memory search', () => {
  it('fills vectors in the background once it may spend, in bounded batches, charging the reported tokens', async () => {
    const { api, dataDir } = await setUp();
    const opened = await openMemory(api, dataDir);
    await keepAll(opened.memory, FACTS);
    await opened.semantic.settled();
    // Nothing is embedded before the budget is wired (the runtime does it once the heartbeat runs).
    expect(api.requests).toEqual([]);
    expect(opened.semantic.pendingCount).toBe(3);
    const spend = fakeSpend();
    opened.semantic.startFilling(spend);
    await opened.semantic.settled();
    expect(opened.semantic.size).toBe(3);
    expect(opened.semantic.pendingCount).toBe(0);
    expect(api.requests.map((r) => r.input.length)).toEqual([2, 1]);
    expect(api.requests.every((r) => r.model === 'fake-embed-a' && r.encodingFormat === 'float')).toBe(true);
    const words = FACTS.reduce((sum, fact) => sum + (fact.match(/[a-z0-9]+/gi) ?? []).length, 0);
    expect(spend.tokens.reduce((a, b) => a + b, 0)).toBe(words);
    expect(await vectorKeys(opened.db)).toHaveLength(3);
    // A memory kept later is embedded too, without blocking the keep.
    await opened.memory.keep({
      content: 'The dentist appointment is on Friday.',
      source: 'task',
      salience: 0.5,
      at: AT + 9,
    });
    await opened.semantic.settled();
    expect(opened.semantic.size).toBe(4);
  });

  it('finds a memory by meaning when no word matches, fused with the lexical ranking', async () => {
    const { api, dataDir } = await setUp();
    const opened = await openMemory(api, dataDir);
    await keepAll(opened.memory, FACTS);
    // Lexically, "automobile" matches nothing.
    expect(opened.memory.recall('automobile', 5)).toEqual([]);
    opened.semantic.startFilling(fakeSpend());
    await opened.semantic.settled();
    const [byMeaning] = await opened.memory.search('automobile', 5);
    expect(byMeaning?.memory.content).toBe(FACTS[0]);
    // One memory found by a word, another by meaning: both come back, the one found both ways first.
    const both = await opened.memory.search('Sunday espresso', 5);
    expect(
      both
        .slice(0, 2)
        .map((hit) => hit.memory.content)
        .sort(),
    ).toEqual([FACTS[1], FACTS[2]].sort());
    const fused = await opened.memory.search('beverage tea', 5);
    expect(fused[0]?.memory.content).toBe(FACTS[2]);
    expect(fused[0]?.score).toBeCloseTo(2 / 61);
  });

  it("re-embeds every memory when the model changes, deleting the old model's vectors", async () => {
    const { api, dataDir } = await setUp();
    const first = await openMemory(api, dataDir, { model: 'fake-embed-a' });
    await keepAll(first.memory, FACTS);
    first.semantic.startFilling(fakeSpend());
    await first.semantic.settled();
    expect(await vectorKeys(first.db)).toHaveLength(3);
    await close(first);
    api.requests.length = 0;

    const second = await openMemory(api, dataDir, { model: 'fake-embed-b' });
    await second.semantic.settled();
    // The old vectors are gone at load; nothing of model b exists yet.
    expect(await vectorKeys(second.db)).toEqual([]);
    expect(second.semantic.pendingCount).toBe(3);
    expect(second.log.info).toHaveBeenCalledWith(
      expect.objectContaining({ deleted: 3, model: 'fake-embed-b' }),
      expect.stringContaining('another model'),
    );
    second.semantic.startFilling(fakeSpend());
    await second.semantic.settled();
    expect(second.semantic.size).toBe(3);
    expect(new Set(api.requests.map((r) => r.model))).toEqual(new Set(['fake-embed-b']));
    expect(await vectorKeys(second.db)).toHaveLength(3);
    expect((await second.memory.search('automobile', 5))[0]?.memory.content).toBe(FACTS[0]);
    await close(second);

    // The same model again: the vectors are read back, nothing is embedded.
    api.requests.length = 0;
    const third = await openMemory(api, dataDir, { model: 'fake-embed-b' });
    third.semantic.startFilling(fakeSpend());
    await third.semantic.settled();
    expect(third.semantic.size).toBe(3);
    expect(api.requests.filter((r) => r.input.length > 1)).toEqual([]);
  });

  it('keeps the lexical search answering while the endpoint is down, logs once, and fills when it is back', async () => {
    const { api, dataDir } = await setUp();
    const outcomes: string[] = [];
    const observer: EmbeddingObserver = {
      requested: (purpose, outcome) => outcomes.push(`${purpose}:${outcome}`),
      tokens: () => undefined,
      pending: () => undefined,
    };
    const opened = await openMemory(api, dataDir, { observer });
    await keepAll(opened.memory, FACTS);
    api.down = true;
    opened.semantic.startFilling(fakeSpend());
    await opened.semantic.settled();
    expect(opened.semantic.size).toBe(0);
    // Three retries later it is still down: one warn line, not one per attempt or per record.
    for (const ms of [1_000, 2_000, 4_000]) {
      opened.clock.increment(ms);
      await opened.semantic.settled();
    }
    expect(outcomes.filter((o) => o === 'fill:failed')).toHaveLength(4);
    expect(opened.log.warn).toHaveBeenCalledTimes(1);
    expect(opened.log.warn).toHaveBeenCalledWith(
      expect.objectContaining({ model: 'fake-embed-a', retryMs: 1_000 }),
      expect.stringContaining('lexical search goes on'),
    );
    // The lexical search answers alone (no vectors yet); a query the endpoint fails on still answers.
    const hits = await opened.memory.search('photo backups', 5);
    expect(hits[0]?.memory.content).toBe(FACTS[1]);

    api.down = false;
    opened.clock.increment(8_000);
    await opened.semantic.settled();
    expect(opened.semantic.size).toBe(3);
    expect(opened.log.info).toHaveBeenCalledWith(expect.anything(), 'the embeddings endpoint answers again');

    // Vectors held, the endpoint down again: a search's query cannot be embedded, and the lexical ranking answers.
    api.down = true;
    const lexical = await opened.memory.search('photo backups', 5);
    expect(lexical.map((hit) => hit.memory.content)).toEqual([FACTS[1]]);
    expect(lexical[0]?.score).toBeGreaterThan(1); // a BM25 score, not a fused one
    expect(outcomes).toContain('query:failed');
  });

  it('stops embedding while the budget is spent (lexical search goes on) and goes on once it may spend', async () => {
    const { api, dataDir } = await setUp();
    const opened = await openMemory(api, dataDir);
    await keepAll(opened.memory, FACTS);
    const spend = fakeSpend();
    spend.allowed = false;
    opened.semantic.startFilling(spend);
    await opened.semantic.settled();
    expect(api.requests).toEqual([]);
    expect((await opened.memory.search('red car', 5))[0]?.memory.content).toBe(FACTS[0]);
    expect(api.requests).toEqual([]);
    spend.allowed = true;
    opened.clock.increment(60_000);
    await opened.semantic.settled();
    expect(opened.semantic.size).toBe(3);
  });

  it("deletes a memory's vector in the batch that forgets it", async () => {
    const { api, dataDir } = await setUp();
    const opened = await openMemory(api, dataDir);
    await keepAll(opened.memory, FACTS);
    opened.semantic.startFilling(fakeSpend());
    await opened.semantic.settled();
    const [car] = await opened.memory.search('automobile', 1);
    await opened.memory.forget(car?.memory.id ?? '');
    expect(await vectorKeys(opened.db)).toHaveLength(2);
    expect(opened.semantic.size).toBe(2);
    expect((await opened.memory.search('automobile', 5)).map((hit) => hit.memory.content)).not.toContain(FACTS[0]);
  });

  it('keeps no plaintext of a memory, and no model name, in a sealed data dir', async () => {
    const { api, dataDir } = await setUp();
    const opened = await openMemory(api, dataDir, { key: KEY, model: 'secret-model-name' });
    await keepAll(opened.memory, FACTS);
    opened.semantic.startFilling(fakeSpend());
    await opened.semantic.settled();
    expect(opened.semantic.size).toBe(3);
    expect((await opened.memory.search('automobile', 1))[0]?.memory.content).toBe(FACTS[0]);
    await close(opened);
    const files = readdirSync(join(dataDir, 'db')).map((name) => readFileSync(join(dataDir, 'db', name)));
    const all = Buffer.concat(files).toString('latin1');
    expect(all).not.toContain('photo library');
    expect(all).not.toContain('green tea');
    expect(all).not.toContain('secret-model-name');
    expect(all).toContain('!embeddings!memory:');
  });
});
