/**
 * The semantic index of one corpus: its records' vectors in memory (loaded from the vector store in the background),
 * the records still lacking one, and the filler that embeds those in bounded batches off the beat. A down endpoint is
 * retried with backoff on the injected clock and logged once; a spent budget pauses the filler until it may spend
 * again. Searches ask it for a query's vector and the nearest records; the fusion with the lexical ranking is the
 * caller's (`hybrid-search.ts`).
 */
import { describeError } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import type { VigilLogger } from '../../shared/logger.js';
import type { VigilBatchOp } from '../store/vigil-db.js';
import { EMBEDDING_BATCH_SIZE, type Embedder } from './embeddings-client.js';
import type { EmbeddingObserver, EmbeddingSpend } from './embedding-spend.js';
import { nextHealth, retryDelayMs, type EndpointHealth } from './endpoint-health.js';
import type { VectorStore } from './vector-store.js';
import { VectorTable, type Neighbour } from './vector-table.js';

/** How long a search waits for its query's vector before answering with the lexical ranking alone. */
export const QUERY_TIMEOUT_MS = 2_000;
/** Vectors scored between two turns of the event loop in a search: some 10 ms of a 768-dimension model. */
export const SCAN_ROWS_PER_STEP = 8_192;
/** How long a filler paused by the budget waits before looking again (a top-up or a new day lets it go on). */
export const BUDGET_RECHECK_MS = 60_000;

/** What the index is built from. */
export interface SemanticIndexOptions {
  store: VectorStore;
  embedder: Embedder;
  clock: Clock;
  log: VigilLogger;
  observer?: EmbeddingObserver;
  /** Inputs per request (default EMBEDDING_BATCH_SIZE). */
  batchSize?: number;
  /** The most a search waits for its query's vector (default QUERY_TIMEOUT_MS). */
  queryTimeoutMs?: number;
}

/** The first `n` entries of `map` (oldest first), without copying the rest. */
function firstEntries<K, V>(map: ReadonlyMap<K, V>, n: number): Array<[K, V]> {
  const out: Array<[K, V]> = [];
  for (const entry of map) {
    if (out.length >= n) break;
    out.push(entry);
  }
  return out;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** One corpus's vectors and its filler. */
export class SemanticIndex {
  private readonly vectors = new VectorTable();
  /** Records without a vector, by seq: the text to embed. */
  private readonly pending = new Map<number, string>();
  /** Records removed while a batch was on its way: their vectors, if written meanwhile, are deleted after. */
  private readonly removedInFlight = new Set<number>();
  private health: EndpointHealth = { state: 'up' };
  private spend: EmbeddingSpend | undefined;
  private loaded = false;
  private stopping = false;
  private running: Promise<void> | undefined;
  private loading: Promise<void> | undefined;
  private timer: unknown;
  private settledWaiters: Array<() => void> = [];

  constructor(private readonly options: SemanticIndexOptions) {}

  /** The model its vectors come from. */
  get model(): string {
    return this.options.embedder.model;
  }

  /** How many records have a vector. */
  get size(): number {
    return this.vectors.size;
  }

  /** How many records wait for one. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * Loads the current model's vectors (deleting any other model's, and those of records `isHeld` no longer knows) in
   * chunks that yield; filling waits for it. Never throws: a store that cannot be read leaves semantic search off
   * (searches rank lexically) until the next start, and says so once.
   */
  load(isHeld: (seq: number) => boolean): Promise<void> {
    this.loading ??= this.loadVectors(isHeld);
    return this.loading;
  }

  private async loadVectors(isHeld: (seq: number) => boolean): Promise<void> {
    const { store, log } = this.options;
    try {
      const stale = await store.scan((seq, vector) => {
        this.vectors.set(seq, vector);
        this.pending.delete(seq);
      }, nextTurn);
      // Left by a crash between a record's deletion and its vector's, or by a record deleted during the scan.
      const orphans = [...this.vectors.keys()].filter((seq) => !isHeld(seq));
      for (const seq of orphans) this.vectors.delete(seq);
      await store.delete(orphans);
      if (stale > 0) {
        log.info(
          { corpus: store.corpus, model: this.model, deleted: stale },
          'embeddings of another model deleted; records are embedded again with the current one',
        );
      }
    } catch (err) {
      this.vectors.clear();
      this.stopping = true;
      log.error({ err, corpus: store.corpus }, 'embeddings could not be loaded; semantic search is off until restart');
      return;
    }
    this.loaded = true;
    this.reportPending();
    this.kick();
  }

  /** Record `seq` with text `text` is held: it gets a vector unless it has one. */
  want(seq: number, text: string): void {
    if (this.vectors.has(seq)) return;
    this.pending.set(seq, text);
    this.reportPending();
    this.kick();
  }

  /** The operation deleting record `seq`'s vector, for the batch that deletes the record. */
  removalOp(seq: number): VigilBatchOp {
    return this.options.store.removalOp(seq);
  }

  /** Record `seq` is gone (its vector deleted by `removalOp` in the same batch). */
  removed(seq: number): void {
    this.vectors.delete(seq);
    this.pending.delete(seq);
    if (this.running !== undefined) this.removedInFlight.add(seq);
  }

  /** Lets the filler spend (the runtime's budget, once the heartbeat runs): until then nothing is embedded. */
  startFilling(spend: EmbeddingSpend): void {
    this.spend = spend;
    this.kick();
  }

  /**
   * Resolves once the filler has nothing it can do now: every held record has a vector, or it waits (for the endpoint
   * to come back, for the budget, for `startFilling` or the load). Tests await it instead of sleeping.
   */
  async settled(): Promise<void> {
    await this.loading;
    if (this.running === undefined) return;
    await new Promise<void>((resolve) => this.settledWaiters.push(resolve));
  }

  /** Stops the filler and waits for a request under way to end. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    await this.running;
  }

  /**
   * The vector of a search's `query`, or null (the search then ranks lexically alone): when the budget is spent, the
   * endpoint fails or takes longer than the query timeout, or its tokens cannot be charged. Never throws.
   */
  async embedQuery(query: string): Promise<Float32Array | null> {
    const { observer, embedder } = this.options;
    if (this.spend === undefined || !this.spend.canSpend()) {
      observer?.requested('query', 'budget_spent');
      return null;
    }
    try {
      const { vectors, inputTokens } = await embedder.embed([query], {
        timeoutMs: this.options.queryTimeoutMs ?? QUERY_TIMEOUT_MS,
      });
      await this.spend.charge(inputTokens);
      observer?.requested('query', 'ok');
      observer?.tokens(inputTokens);
      return vectors[0] ?? null;
    } catch (err) {
      observer?.requested('query', 'failed');
      this.options.log.debug({ err, model: this.model }, 'a search query could not be embedded; lexical ranking alone');
      return null;
    }
  }

  /**
   * The `k` records nearest `query` that `accept` takes (default: all), best first; the scan lets beats and requests
   * run every SCAN_ROWS_PER_STEP rows.
   */
  nearest(query: Float32Array, k: number, accept?: (seq: number) => boolean): Promise<Neighbour[]> {
    return this.vectors.nearestInSteps(query, k, SCAN_ROWS_PER_STEP, nextTurn, accept);
  }

  /** Records `seqs` left their store outside a batch of ours (the conversation's retention): drops their vectors now. */
  async removeNow(seqs: readonly number[]): Promise<void> {
    for (const seq of seqs) this.removed(seq);
    await this.options.store.delete(seqs);
  }

  private reportPending(): void {
    this.options.observer?.pending(this.options.store.corpus, this.pending.size);
  }

  /** Starts the filler unless it runs, waits, or may not. */
  private kick(): void {
    if (this.running !== undefined || this.timer !== undefined || this.stopping) return;
    if (!this.loaded || this.spend === undefined || this.pending.size === 0) return;
    this.running = this.fill()
      .catch((err: unknown) => {
        this.options.log.error({ err, corpus: this.options.store.corpus }, 'embedding stopped: vectors not stored');
      })
      .finally(() => {
        this.running = undefined;
        this.removedInFlight.clear();
        for (const resolve of this.settledWaiters.splice(0)) resolve();
      });
  }

  /** After `ms` on the clock, fill again. */
  private later(ms: number): void {
    if (this.stopping) return;
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, ms);
  }

  private async fill(): Promise<void> {
    const spend = this.spend as EmbeddingSpend;
    const { embedder, observer, store, log, clock } = this.options;
    while (this.pending.size > 0 && !this.stopping) {
      if (!spend.canSpend()) {
        observer?.requested('fill', 'budget_spent');
        this.later(BUDGET_RECHECK_MS);
        return;
      }
      const batch = firstEntries(this.pending, this.options.batchSize ?? EMBEDDING_BATCH_SIZE);
      let embedded;
      try {
        embedded = await embedder.embed(batch.map(([, text]) => text));
      } catch (err) {
        observer?.requested('fill', 'failed');
        const wasUp = this.health.state === 'up';
        this.health = nextHealth(this.health, { type: 'failed', at: clock.now() });
        const retryMs = retryDelayMs(this.health);
        if (wasUp) {
          log.warn(
            { model: this.model, pending: this.pending.size, reason: describeError(err), retryMs },
            'the embeddings endpoint failed; semantic search waits for it (retrying with backoff), lexical search goes on',
          );
        }
        this.later(retryMs);
        return;
      }
      if (this.health.state === 'down') log.info({ model: this.model }, 'the embeddings endpoint answers again');
      this.health = nextHealth(this.health, { type: 'succeeded' });
      // Charged before the vectors are used, as a think is before its result: a crash never gives money back.
      await spend.charge(embedded.inputTokens);
      observer?.requested('fill', 'ok');
      observer?.tokens(embedded.inputTokens);
      // A record removed or changed while its batch was on its way gets no vector.
      const fresh = batch
        .map(([seq, text], i) => [seq, text, embedded.vectors[i] as Float32Array] as const)
        .filter(([seq, text]) => this.pending.get(seq) === text);
      await store.put(fresh.map(([seq, , vector]) => [seq, vector] as const));
      for (const [seq, , vector] of fresh) {
        if (this.removedInFlight.has(seq)) continue;
        this.vectors.set(seq, vector);
        this.pending.delete(seq);
      }
      const gone = fresh.map(([seq]) => seq).filter((seq) => this.removedInFlight.has(seq));
      await store.delete(gone);
      this.removedInFlight.clear();
      this.reportPending();
      // Lets beats and requests run between batches.
      await nextTurn();
    }
  }
}
