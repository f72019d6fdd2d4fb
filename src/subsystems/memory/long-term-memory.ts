/**
 * Long-term memory: every memory written durably (one sync batch) to its LevelDB sublevel and indexed for full-text
 * search. The same fact twice is one memory, refreshed; past VIGIL_MEMORY_MAX_COUNT the memories least worth keeping
 * are forgotten (`memory-retention.ts`). The index is rebuilt from the store in the background after
 * `open` (or once the host says its boot is done, `indexAfter`), so a large store never holds up the boot; until it is
 * built, searches wait and the think's recall is empty.
 */
import { VigilError } from '../../errors.js';
import { StoredMemorySchema, type StoredMemory } from '../../protocol/memory.schema.js';
import { SUBLEVELS, toStoreError, writeSyncBatch, type VigilBatchOp, type VigilDb } from '../store/vigil-db.js';
import { hybridRanking } from '../embeddings/hybrid-search.js';
import type { MemoryIndex } from './memory-index.js';
import { loadMemoryIndex } from './memory-index-loader.js';
import {
  DEFAULT_MEMORY_MAX_COUNT,
  evictionCount,
  lastValuedAt,
  memoriesToEvict,
  RECALL_REFRESH_MS,
} from './memory-retention.js';
import { memoryIdOf, memorySeqKey, memorySeqOf } from './memory-keys.js';
import type { KeepOutcome, KeepRequest, LongTermMemoryOptions, MemoryHit } from './long-term-memory.types.js';
import { memoryContentHash } from './memory-text.js';

const HIGHEST_SEQ_KEY = 'highestSeq';
// Memories read and indexed per step of the background build, between which the event loop runs (the rest of the
// boot, beats, requests): small enough that one step holds the loop for a few milliseconds only.
const LOAD_CHUNK = 250;

/** The long-term memory store and its index. */
export class LongTermMemory {
  private readonly records;
  private readonly meta;
  private readonly bySeq = new Map<number, StoredMemory>();
  private readonly byHash = new Map<string, number>();
  // Made with its module (and MiniSearch) at the first memory read or kept: never on the boot's path, and not at all
  // while there is nothing to index.
  private index: MemoryIndex | undefined;
  /** Working-memory items dropped because their fact was forgotten: never consolidated, even by a settle under way. */
  private readonly forgottenItems = new Set<string>();
  private highest = 0;
  private loaded = false;
  private indexing = false;
  private stopping = false;
  private loading: Promise<void> = Promise.resolve();
  private writes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: VigilDb,
    private readonly options: LongTermMemoryOptions = {},
  ) {
    this.records = db.sublevel<string, StoredMemory>(SUBLEVELS.longTermMemory, { valueEncoding: 'json' });
    this.meta = db.sublevel<string, number>(SUBLEVELS.longTermMemoryMeta, { valueEncoding: 'json' });
  }

  /** Reads the watermark (one small key); the index is built in the background, from `indexAfter` on. */
  async open(): Promise<void> {
    try {
      const stored = await this.meta.get(HIGHEST_SEQ_KEY);
      const [lastKey] = await this.records.keys({ reverse: true, limit: 1 }).all();
      this.highest = Math.max(typeof stored === 'number' ? stored : 0, lastKey === undefined ? 0 : Number(lastKey));
    } catch (err) {
      throw toStoreError(err, 'open long-term memory');
    }
    const startBuild = () => this.startIndexing();
    if (this.options.indexAfter === undefined) startBuild();
    else this.options.indexAfter.then(startBuild, startBuild);
  }

  /** Starts the background build of the index, once (later calls do nothing). */
  startIndexing(): void {
    if (this.indexing) return;
    this.indexing = true;
    this.loading = this.load();
    this.loading.catch((err: unknown) => {
      // A build cut short by `stop` is no failure worth reporting.
      if (!this.stopping) this.options.onLoadError?.(err);
    });
  }

  /** Resolves once the index holds every stored memory (starting the build if it waits still); rejects if it could not be built. */
  whenReady(): Promise<void> {
    this.startIndexing();
    return this.loading;
  }

  /** Stops a background build still running (the database is about to close) and waits for it to let go. */
  async stop(): Promise<void> {
    this.stopping = true;
    // A failed load was reported when it failed (onLoadError, whenReady); stopping only waits for it to let go.
    await this.loading.catch(() => undefined);
    await this.writes;
    await this.options.semantic?.stop();
  }

  /** True once the index is built. */
  get ready(): boolean {
    return this.loaded;
  }

  /** The highest seq ever issued (0: none): a checkpoint stores it; memories above it were made later. */
  watermark(): number {
    return this.highest;
  }

  /** How many memories are held (once ready). */
  get size(): number {
    return this.bySeq.size;
  }

  /**
   * Keeps `request` durably: a new memory, or, when the same fact (normalised content) is already kept, that memory
   * refreshed (updatedAt now, the higher salience). Resolves once the write is synced.
   */
  async keep(request: KeepRequest): Promise<KeepOutcome> {
    const content = request.content.trim();
    if (content === '') throw new VigilError('INTERNAL', 'A long-term memory must have content.');
    // Queued at the call (a search made after it waits for it), run once the index is built.
    return this.exclusive(async () => {
      await this.whenReady();
      await this.ensureIndex();
      const hash = memoryContentHash(content);
      const existingSeq = this.byHash.get(hash);
      const existing = existingSeq === undefined ? undefined : this.bySeq.get(existingSeq);
      const salience = Math.min(1, Math.max(0, request.salience));
      if (existing !== undefined) {
        const refreshed: StoredMemory = {
          ...existing,
          salience: Math.max(existing.salience, salience),
          updatedAt: Math.max(existing.updatedAt, request.at),
        };
        await this.write(
          [{ type: 'put', sublevel: this.records, key: memorySeqKey(existing.seq), value: refreshed }],
          'refresh a memory',
        );
        this.bySeq.set(existing.seq, refreshed);
        return { memory: refreshed, created: false };
      }
      const seq = this.highest + 1;
      const memory: StoredMemory = {
        id: memoryIdOf(seq),
        seq,
        content,
        source: request.source,
        salience,
        createdAt: Math.min(request.createdAt ?? request.at, request.at),
        updatedAt: request.at,
      };
      const maxCount = this.options.maxCount ?? DEFAULT_MEMORY_MAX_COUNT;
      const evicted = memoriesToEvict(this.bySeq.values(), evictionCount(this.bySeq.size + 1, maxCount));
      // The highest seq goes with the memory: forgetting the newest must never let its seq be issued again. The
      // memories it displaces go in the same batch, so a crash never leaves the store past its bound.
      await this.write(
        [
          { type: 'put', sublevel: this.records, key: memorySeqKey(seq), value: memory },
          { type: 'put', sublevel: this.meta, key: HIGHEST_SEQ_KEY, value: seq },
          ...evicted.flatMap((old) => this.removalOps(old.seq)),
        ],
        `keep memory ${memory.id}`,
      );
      this.highest = seq;
      for (const old of evicted) this.drop(old);
      this.remember(memory, hash);
      if (evicted.length > 0) this.options.onEvicted?.(evicted);
      return { memory, created: true };
    });
  }

  /**
   * Notes that the agent used memories `ids` at `at` (recalled into a think, or found by its `recall` tool), so
   * retention counts them as fresh: each memory's `recalledAt`, written when its last use is a day old or more. Not
   * waited for and not synced: a use lost to a crash costs a day's precision of a 90-day half-life. A memory forgotten
   * or evicted meanwhile stays gone (the write is queued behind those and skips what they removed).
   */
  noteRecalled(ids: readonly string[], at: number): void {
    const stale = (memory: StoredMemory | undefined): memory is StoredMemory =>
      memory !== undefined && at - lastValuedAt(memory) >= RECALL_REFRESH_MS;
    if (!ids.some((id) => stale(this.get(id)))) return;
    this.exclusive(async () => {
      const used = ids.map((id) => this.get(id)).filter(stale);
      if (used.length === 0) return;
      const refreshed = used.map((memory): StoredMemory => ({ ...memory, recalledAt: at }));
      for (const memory of refreshed) this.bySeq.set(memory.seq, memory);
      const ops = refreshed.map((memory): VigilBatchOp => ({
        type: 'put',
        sublevel: this.records,
        key: memorySeqKey(memory.seq),
        value: memory,
      }));
      await this.db.batch(ops, {});
    }).catch((err: unknown) => this.options.onRecallWriteError?.(toStoreError(err, 'note recalled memories')));
  }

  /** Deletes memory `id` from the store (synced) and the index; MEMORY_NOT_FOUND when there is none. */
  async forget(id: string): Promise<StoredMemory> {
    return this.exclusive(async () => {
      await this.whenReady();
      const memory = this.get(id);
      if (memory === undefined) {
        throw new VigilError('MEMORY_NOT_FOUND', `No long-term memory with id ${JSON.stringify(id)}.`, {
          data: { id },
        });
      }
      await this.write(this.removalOps(memory.seq), `forget memory ${id}`);
      this.drop(memory);
      return memory;
    });
  }

  /** Notes working-memory items dropped with a forgotten memory, so consolidation never brings the fact back. */
  noteForgottenItems(itemIds: readonly string[]): void {
    for (const id of itemIds) this.forgottenItems.add(id);
  }

  /** The working-memory items dropped with forgotten memories. */
  forgottenItemIds(): ReadonlySet<string> {
    return this.forgottenItems;
  }

  /** Memory `id`, if held. */
  get(id: string): StoredMemory | undefined {
    const seq = memorySeqOf(id);
    return seq === undefined ? undefined : this.bySeq.get(seq);
  }

  /**
   * The best `limit` memories for `query`, best first: waits for the index and for every write queued before it. With
   * a semantic index, the lexical ranking is fused with the memories nearest the query's vector (the score is then the
   * fused one); without, or when the query cannot be embedded, it is the lexical ranking alone.
   */
  async search(query: string, limit: number): Promise<MemoryHit[]> {
    await this.whenReady();
    await this.writes;
    const ranked = await hybridRanking(
      query,
      limit,
      (depth) => this.index?.search(query, depth) ?? [],
      this.options.semantic,
    );
    return ranked.flatMap(({ seq, score }) => {
      const memory = this.bySeq.get(seq);
      return memory === undefined ? [] : [{ memory, score }];
    });
  }

  /** The best `limit` memories for `query` now, without waiting: empty while the index is still being built. */
  recall(query: string, limit: number): MemoryHit[] {
    if (!this.loaded || this.index === undefined) return [];
    return this.index.search(query, limit).flatMap(({ seq, score }) => {
      const memory = this.bySeq.get(seq);
      return memory === undefined ? [] : [{ memory, score }];
    });
  }

  /** How many memories still kept were made after `watermark` (after a checkpoint that knew up to it). */
  async countAfter(watermark: number): Promise<number> {
    await this.whenReady();
    let count = 0;
    for (const seq of this.bySeq.keys()) if (seq > watermark) count += 1;
    return count;
  }

  /** Every memory with seq at or below `watermark`, oldest first (what a checkpoint taken at that watermark knew). */
  async upTo(watermark: number): Promise<StoredMemory[]> {
    await this.whenReady();
    return [...this.bySeq.values()].filter((m) => m.seq <= watermark).sort((a, b) => a.seq - b.seq);
  }

  private remember(memory: StoredMemory, hash: string): void {
    this.bySeq.set(memory.seq, memory);
    this.byHash.set(hash, memory.seq);
    this.index?.add(memory);
    this.options.semantic?.want(memory.seq, memory.content);
  }

  private drop(memory: StoredMemory): void {
    this.bySeq.delete(memory.seq);
    this.byHash.delete(memoryContentHash(memory.content));
    this.index?.remove(memory);
    this.options.semantic?.removed(memory.seq);
  }

  /** The batch operations that delete memory `seq`: its record, and its vector in the same batch. */
  private removalOps(seq: number): VigilBatchOp[] {
    const record: VigilBatchOp = { type: 'del', sublevel: this.records, key: memorySeqKey(seq) };
    const semantic = this.options.semantic;
    return semantic === undefined ? [record] : [record, semantic.removalOp(seq)];
  }

  private async load(): Promise<void> {
    if (this.stopping)
      throw new VigilError('RUNTIME_STOPPED', 'The runtime stopped before long-term memory was indexed.');
    const iterator = this.records.iterator();
    try {
      for (;;) {
        if (this.stopping) {
          throw new VigilError('RUNTIME_STOPPED', 'The runtime stopped before long-term memory was indexed.');
        }
        const entries = await iterator.nextv(LOAD_CHUNK);
        if (entries.length === 0) break;
        await this.ensureIndex();
        for (const [key, value] of entries) {
          const parsed = StoredMemorySchema.safeParse(value);
          if (!parsed.success)
            throw new VigilError(
              'STORE_IO',
              `Long-term memory entry ${key} is unreadable: ${parsed.error.issues[0]?.message ?? 'invalid'}.`,
            );
          this.remember(parsed.data, memoryContentHash(parsed.data.content));
        }
        // Lets beats and requests run between chunks: a store of 100,000 memories is indexed without a long stall.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } catch (err) {
      throw toStoreError(err, 'load long-term memory');
    } finally {
      // The read's own error (thrown above) is the one worth reporting; a failed close of the iterator adds nothing.
      await iterator.close().catch(() => undefined);
    }
    this.loaded = true;
    // After the index (the filler must know every memory), in the background: searches rank lexically until then.
    if (!this.stopping) void this.options.semantic?.load((seq) => this.bySeq.has(seq));
  }

  private async ensureIndex(): Promise<void> {
    if (this.index !== undefined) return;
    const { MemoryIndex } = await loadMemoryIndex();
    this.index ??= new MemoryIndex();
  }

  private async write(ops: VigilBatchOp[], what: string): Promise<void> {
    try {
      await writeSyncBatch(this.db, ops);
    } catch (err) {
      throw toStoreError(err, what);
    }
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writes.then(fn, fn);
    // Only the queue's tail swallows a failure (the next write still runs); the caller gets it from `run`.
    this.writes = run.catch(() => undefined);
    return run;
  }
}
