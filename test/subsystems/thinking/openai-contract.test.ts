/** The provider contract (thinker-contract.ts) for the OpenAI-compatible thinker, against the fake Chat Completions API. */
import { OpenAiThinker } from '../../../src/subsystems/thinking/openai-thinker.js';
import type { ModelPricing } from '../../../src/subsystems/thinking/pricing.js';
import {
  chatError,
  chatTokenUsage,
  completion,
  pendingTurnIds,
  startFakeChatCompletions,
  toolCall,
  type FakeChatResponse,
  type RecordedChatRequest,
} from '../../fixtures/fake-chat-completions.js';
import { streamingContract, thinkerContract, type StreamingContractProvider } from './thinker-contract.js';

const MODEL = 'gpt-fake-1';
/** As VIGIL_PRICING_JSON would give it: OpenAI bills cached input at a tenth, and writes nothing. */
const PRICE: ModelPricing = { inputPerMTok: 1.25, outputPerMTok: 10, cacheWritePerMTok: 0, cacheReadPerMTok: 0.125 };
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_api_key',
  404: 'model_not_found',
  429: 'rate_limit_exceeded',
};

/** The contents of the tool messages a request sent back, in order. */
function toolResults(request: RecordedChatRequest): string[] {
  const messages = (request.body?.messages ?? []) as { role: string; content: unknown }[];
  return messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
}

const provider: StreamingContractProvider<FakeChatResponse, RecordedChatRequest> = {
  kind: 'openai',
  price: PRICE,
  start: () => startFakeChatCompletions(),
  thinker: (url, options) =>
    new OpenAiThinker({
      apiKey: 'sk-test',
      baseURL: url,
      model: MODEL,
      price: PRICE,
      maxToolIterations: 4,
      ...options,
    }),
  turn: (said, calls = []) =>
    completion(
      said === '' ? null : said,
      calls.map((c) => toolCall(c.name, c.input)),
    ),
  replyToEachPending: () => ({
    kind: 'respond',
    respond: (request) =>
      completion(
        null,
        pendingTurnIds(request).map((turnId) => toolCall('reply', { turnId, text: `answer to ${turnId}` })),
      ),
  }),
  error: (status) => chatError(status, ERROR_TYPES[status] ?? 'server_error', { 'retry-after-ms': '1' }),
  hang: () => ({ kind: 'hang' }),
  stallStream: (turn, events) => ({ kind: 'stall-stream', completion: turn, chunks: events }),
  streamed: (request) => request.body?.stream === true,
  usageOf: (request) => (request.usage === undefined ? undefined : chatTokenUsage(request.usage)),
  toolResults,
};

thinkerContract(provider);
streamingContract(provider);
