/** What embedding may spend, and how a request's tokens are priced and charged to the daily budget like a think's. */

/** The budget as the embeddings see it: whether money may be spent now, and the charge of one request's tokens. */
export interface EmbeddingSpend {
  /** False once the day's budget is spent (or the agent sleeps for it): embedding stops, lexical search goes on. */
  canSpend(): boolean;
  /** Charges one request (written to the ledger before its vectors are used); rejects when it cannot be recorded. */
  charge(inputTokens: number): Promise<void>;
}

/** What the filler and the searches report, for metrics. */
export interface EmbeddingObserver {
  /** One request to the endpoint: to fill vectors or to embed a search's query, and how it ended. */
  requested(purpose: 'fill' | 'query', outcome: 'ok' | 'failed' | 'budget_spent'): void;
  /** Input tokens one request used. */
  tokens(count: number): void;
  /** Records of a corpus still waiting for a vector. */
  pending(corpus: string, count: number): void;
}

// OpenAI's list prices in USD per million input tokens (https://platform.openai.com/docs/pricing, "Embeddings").
const KNOWN_PRICES: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 0.02,
  'text-embedding-3-large': 0.13,
  'text-embedding-ada-002': 0.1,
};

/** The price of `model` per million tokens: the configured one, OpenAI's list price for its models, else 0 (local). */
export function embeddingPricePerMTok(model: string, configured: number | undefined): number {
  return configured ?? KNOWN_PRICES[model] ?? 0;
}

/** The cost of `inputTokens` at `pricePerMTok`, in whole micro-dollars (rounded up: a charge never undercounts). */
export function embeddingCostMicroUsd(inputTokens: number, pricePerMTok: number): number {
  return Math.ceil(inputTokens * pricePerMTok);
}
