/**
 * The embeddings client: an OpenAI-compatible `POST /embeddings` (OpenAI, Ollama, llama.cpp's server, vLLM) through the
 * official `openai` SDK. One request per batch, no SDK retries (the background filler retries with its own backoff, a
 * search falls back to the lexical ranking), each answer checked to be one finite vector per input.
 */
import type OpenAI from 'openai';
import { z } from 'zod';
import { describeError, VigilError } from '../../errors.js';
import { estimateTokens } from '../thinking/token-estimate.js';
import { normalised } from './vector-codec.js';

/** The most inputs sent in one request: OpenAI takes up to 2048, local servers are slower per batch; 32 keeps each short. */
export const EMBEDDING_BATCH_SIZE = 32;

/** Inputs longer than this many characters are cut: every server caps its context, and a memory's gist is early on. */
export const EMBEDDING_MAX_INPUT_CHARS = 8_000;

/** What one request gave: one unit-length vector per input, in input order, and the input tokens it used. */
export interface Embedded {
  vectors: Float32Array[];
  inputTokens: number;
}

/** Anything that turns texts into vectors: the client below, or a test's stand-in. */
export interface Embedder {
  /** The model the vectors come from. */
  readonly model: string;
  /** One vector per text; EMBEDDINGS_FAILED when the endpoint fails, times out or answers something else. */
  embed(texts: readonly string[], options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<Embedded>;
}

// What an OpenAI-compatible server answers (only the fields Vigil reads); `usage` is optional on some local servers.
const EmbeddingsResponseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()).min(1) })),
  usage: z.object({ prompt_tokens: z.number().int().nonnegative() }).optional(),
});

/** Options of the client: the endpoint, the model, and a timeout per request. */
export interface EmbeddingsClientOptions {
  baseURL: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

/** The embeddings client over the `openai` SDK. */
export class EmbeddingsClient implements Embedder {
  readonly model: string;
  private readonly timeoutMs: number;
  private readonly options: EmbeddingsClientOptions;
  // The SDK is loaded at the first request, not at start: a daemon loads only the model SDK its thinker uses
  // (test/e2e/start-up-imports.test.ts), and embeddings wait for the heartbeat anyway.
  private client: Promise<OpenAI> | undefined;

  constructor(options: EmbeddingsClientOptions) {
    this.model = options.model;
    this.timeoutMs = options.timeoutMs;
    this.options = options;
  }

  private sdk(): Promise<OpenAI> {
    const { baseURL, apiKey, timeoutMs } = this.options;
    // A local server needs no key, but the SDK insists on one: a placeholder it sends and the server ignores.
    return (this.client ??= import('openai').then(
      ({ default: OpenAI }) =>
        new OpenAI({ baseURL, apiKey: apiKey ?? 'not-needed', maxRetries: 0, timeout: timeoutMs }),
    ));
  }

  async embed(texts: readonly string[], options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<Embedded> {
    if (texts.length === 0) return { vectors: [], inputTokens: 0 };
    const input = texts.map((text) => text.slice(0, EMBEDDING_MAX_INPUT_CHARS));
    let raw: unknown;
    try {
      // `float`, not the SDK's default base64: every compatible server speaks it, not all speak base64.
      const client = await this.sdk();
      raw = await client.embeddings.create(
        { model: this.model, input, encoding_format: 'float' },
        {
          timeout: options.timeoutMs ?? this.timeoutMs,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        },
      );
    } catch (err) {
      throw new VigilError(
        'EMBEDDINGS_FAILED',
        `The embeddings endpoint failed for model ${this.model}: ${describeError(err)}.`,
        {
          cause: err,
        },
      );
    }
    return { vectors: vectorsOf(raw, input.length, this.model), inputTokens: tokensOf(raw, input) };
  }
}

/** The answer's vectors in input order, unit length; EMBEDDINGS_FAILED unless there is one finite vector per input, all one size. */
function vectorsOf(raw: unknown, count: number, model: string): Float32Array[] {
  const parsed = EmbeddingsResponseSchema.safeParse(raw);
  const fail = (why: string) =>
    new VigilError('EMBEDDINGS_FAILED', `The embeddings endpoint answered model ${model} with ${why}.`);
  if (!parsed.success) throw fail(`no embeddings list (${parsed.error.issues[0]?.message ?? 'invalid'})`);
  const byIndex = new Map(parsed.data.data.map((item) => [item.index, item.embedding]));
  const vectors: Float32Array[] = [];
  for (let i = 0; i < count; i += 1) {
    const embedding = byIndex.get(i);
    if (embedding === undefined) throw fail(`${parsed.data.data.length} vectors for ${count} inputs`);
    if (!embedding.every(Number.isFinite)) throw fail('a vector holding values that are not numbers');
    if (vectors.length > 0 && embedding.length !== vectors[0]?.length) throw fail('vectors of different sizes');
    vectors.push(normalised(embedding));
  }
  return vectors;
}

/** The input tokens the server reports, or the conservative estimate when it reports none. */
function tokensOf(raw: unknown, input: readonly string[]): number {
  const reported = EmbeddingsResponseSchema.safeParse(raw);
  const tokens = reported.success ? reported.data.usage?.prompt_tokens : undefined;
  return tokens ?? input.reduce((sum, text) => sum + estimateTokens(text), 0);
}
