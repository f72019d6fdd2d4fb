/**
 * Semantic search's parts, when VIGIL_EMBEDDINGS_URL and VIGIL_EMBEDDINGS_MODEL are set: one embeddings client and a
 * semantic index per searchable corpus, reporting to the metrics. Unset: none, and every search is lexical.
 */
import type { VigilConfig } from '../config.js';
import type { Clock } from '../shared/clock.js';
import type { VigilLogger } from '../shared/logger.js';
import { EmbeddingsClient, type Embedder } from '../subsystems/embeddings/embeddings-client.js';
import { embeddingPricePerMTok, type EmbeddingObserver } from '../subsystems/embeddings/embedding-spend.js';
import { QUERY_TIMEOUT_MS, SemanticIndex } from '../subsystems/embeddings/semantic-index.js';
import { VectorStore, type EmbeddingCorpus } from '../subsystems/embeddings/vector-store.js';
import type { VigilDb } from '../subsystems/store/vigil-db.js';

/** The client and what it costs; `index(corpus)` makes one corpus's semantic index over it. */
export interface SemanticParts {
  model: string;
  pricePerMTok: number;
  index(corpus: EmbeddingCorpus): SemanticIndex;
  /** Every index made, for the runtime to start filling once the heartbeat runs. */
  readonly indexes: readonly SemanticIndex[];
}

/** What the parts are built from (`embedder` replaces the client in tests). */
export interface SemanticPartsDeps {
  config: VigilConfig;
  db: VigilDb;
  clock: Clock;
  log: VigilLogger;
  observer?: EmbeddingObserver;
  embedder?: Embedder;
}

/** The semantic parts, or undefined when no embeddings endpoint is configured. */
export function semanticPartsOf(deps: SemanticPartsDeps): SemanticParts | undefined {
  const { config, db, clock, log, observer } = deps;
  if (config.embeddingsUrl === undefined || config.embeddingsModel === undefined) return undefined;
  const embedder =
    deps.embedder ??
    new EmbeddingsClient({
      baseURL: config.embeddingsUrl,
      model: config.embeddingsModel,
      timeoutMs: config.embeddingsTimeoutMs,
      ...(config.embeddingsApiKey === undefined ? {} : { apiKey: config.embeddingsApiKey }),
    });
  const indexes: SemanticIndex[] = [];
  return {
    model: embedder.model,
    pricePerMTok: embeddingPricePerMTok(embedder.model, config.embeddingsPricePerMTok),
    indexes,
    index: (corpus) => {
      const index = new SemanticIndex({
        store: new VectorStore(db, corpus, embedder.model),
        embedder,
        clock,
        log,
        queryTimeoutMs: Math.min(config.embeddingsTimeoutMs, QUERY_TIMEOUT_MS),
        ...(observer === undefined ? {} : { observer }),
      });
      indexes.push(index);
      return index;
    },
  };
}
