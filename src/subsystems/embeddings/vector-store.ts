/**
 * The embedding vectors of one corpus (long-term memory, the conversation) in LevelDB, beside its records and sealed
 * like them when VIGIL_CHECKPOINT_KEY is set. A key is `<corpus>:<model tag>:<record seq>` (a hash of the model id, so
 * keys hold no configured text and one model's vectors are one key range); a value is the vector's Float32 bytes.
 */
import { createHash } from 'node:crypto';
import { SUBLEVELS, toStoreError, type VigilBatchOp, type VigilDb } from '../store/vigil-db.js';
import { memorySeqKey } from '../memory/memory-keys.js';
import { decodeVector, encodeVector } from './vector-codec.js';

function readableVector(bytes: Uint8Array): Float32Array | null {
  try {
    return decodeVector(bytes);
  } catch {
    return null;
  }
}

/** The record collections that carry vectors. */
export type EmbeddingCorpus = 'memory' | 'conversation';

// Keys read and deleted per step of a background scan, between which the event loop runs.
const SCAN_CHUNK = 500;

/** The tag of model `model` in keys: 16 hex digits of its SHA-256 (a collision between two models is not a concern). */
export function modelTag(model: string): string {
  return createHash('sha256').update(model).digest('hex').slice(0, 16);
}

/** The vectors of one corpus made by one model. */
export class VectorStore {
  private readonly vectors;
  private readonly corpusPrefix: string;
  private readonly modelPrefix: string;

  constructor(
    db: VigilDb,
    readonly corpus: EmbeddingCorpus,
    readonly model: string,
  ) {
    this.vectors = db.sublevel<string, Uint8Array>(SUBLEVELS.embeddings, { valueEncoding: 'view' });
    this.corpusPrefix = `${corpus}:`;
    this.modelPrefix = `${corpus}:${modelTag(model)}:`;
  }

  /** The key of record `seq`'s vector under the current model. */
  private keyOf(seq: number): string {
    return this.modelPrefix + memorySeqKey(seq);
  }

  /** The operation that deletes record `seq`'s vector, for the batch that deletes the record. */
  removalOp(seq: number): VigilBatchOp {
    return { type: 'del', sublevel: this.vectors, key: this.keyOf(seq) };
  }

  /** Stores vectors (not synced: one lost to a crash is made again, and it is no record of anything). */
  async put(entries: ReadonlyArray<readonly [number, Float32Array]>): Promise<void> {
    if (entries.length === 0) return;
    try {
      await this.vectors.batch(
        entries.map(([seq, vector]) => ({ type: 'put' as const, key: this.keyOf(seq), value: encodeVector(vector) })),
      );
    } catch (err) {
      throw toStoreError(err, `store ${entries.length} ${this.corpus} embeddings`);
    }
  }

  /** Deletes the vectors of records `seqs`. */
  async delete(seqs: readonly number[]): Promise<void> {
    if (seqs.length === 0) return;
    try {
      await this.vectors.batch(seqs.map((seq) => ({ type: 'del' as const, key: this.keyOf(seq) })));
    } catch (err) {
      throw toStoreError(err, `delete ${seqs.length} ${this.corpus} embeddings`);
    }
  }

  /**
   * Every vector of the current model, read in chunks (`onChunk` after each, where the caller yields), and every
   * vector of another model deleted on the way: a changed model re-embeds, and the old vectors are dead weight.
   * Returns how many stale vectors were deleted.
   */
  async scan(onVector: (seq: number, vector: Float32Array) => void, onChunk: () => Promise<void>): Promise<number> {
    const iterator = this.vectors.iterator({ gte: this.corpusPrefix, lt: `${this.corpus};` });
    let stale = 0;
    try {
      for (;;) {
        const entries = await iterator.nextv(SCAN_CHUNK);
        if (entries.length === 0) break;
        const dead: string[] = [];
        for (const [key, value] of entries) {
          const vector = key.startsWith(this.modelPrefix) ? readableVector(value) : null;
          // Another model's vector, or one that cannot be read: deleted, and its record embedded again.
          if (vector === null) dead.push(key);
          else onVector(Number(key.slice(this.modelPrefix.length)), vector);
        }
        if (dead.length > 0) await this.vectors.batch(dead.map((key) => ({ type: 'del' as const, key })));
        stale += dead.length;
        await onChunk();
      }
    } catch (err) {
      throw toStoreError(err, `read the ${this.corpus} embeddings`);
    } finally {
      await iterator.close().catch(() => undefined);
    }
    return stale;
  }
}
