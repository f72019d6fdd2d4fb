/** What long-term memory is asked and answers (`long-term-memory.ts`), apart from the store so its users need not import it. */
import type { MemorySource, StoredMemory } from '../../protocol/memory.schema.js';
import type { SemanticIndex } from '../embeddings/semantic-index.js';

/** Something to keep. */
export interface KeepRequest {
  content: string;
  source: MemorySource;
  salience: number;
  /** Epoch ms now. */
  at: number;
  /** When it was first kept, if earlier than now (an imported memory keeps its own). */
  createdAt?: number;
}

/** What `keep` did: the memory as stored, and whether it is new (false: an existing one was refreshed). */
export interface KeepOutcome {
  memory: StoredMemory;
  created: boolean;
}

/** A search hit: the memory and its relevance. */
export interface MemoryHit {
  memory: StoredMemory;
  score: number;
}

/** Options of the store. */
export interface LongTermMemoryOptions {
  /** Told when the background index build fails (searches then fail with the same error). */
  onLoadError?: (err: unknown) => void;
  /**
   * The background build starts once this settles (default: at `open`). The daemon passes its gateway's listening: the
   * build's steps would otherwise run between the boot's own reads and writes and delay it. Anything that needs the
   * index before then (a search, a keep) starts the build itself rather than wait.
   */
  indexAfter?: PromiseLike<unknown>;
  /**
   * The most memories kept (VIGIL_MEMORY_MAX_COUNT): a keep that takes the store past it forgets, in the same write,
   * the memories least worth keeping (`memory-retention.ts`) down to 1 % below it; the new memory itself is kept.
   * Default 100,000.
   */
  maxCount?: number;
  /** Told, after the write, of the memories a keep forgot to stay within `maxCount`. */
  onEvicted?: (memories: readonly StoredMemory[]) => void;
  /** Told when writing that memories were used (`noteRecalled`) failed: nothing waits on that write. */
  onRecallWriteError?: (err: unknown) => void;
  /**
   * The memories' vectors (VIGIL_EMBEDDINGS_URL): told of every memory held and dropped, its vector deleted in the
   * batch that deletes the memory, and fused into `search`. Unset: lexical search only.
   */
  semantic?: SemanticIndex;
}
