/** The provider contract (thinker-contract.ts), streaming included, for the Anthropic thinker against the fake Messages API. */
import { AnthropicThinker } from '../../../src/subsystems/thinking/anthropic-thinker.js';
import { resolvePrice } from '../../../src/subsystems/thinking/pricing.js';
import {
  apiError,
  message,
  pendingTurnIds,
  startFakeMessagesApi,
  text,
  tokenUsageOf,
  toolUse,
  type FakeResponse,
  type RecordedRequest,
} from '../../fixtures/fake-messages-api.js';
import { streamingContract, thinkerContract, type StreamingContractProvider } from './thinker-contract.js';

const MODEL = 'claude-sonnet-4-6';
const PRICE = resolvePrice(MODEL);
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  404: 'not_found_error',
  413: 'request_too_large',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
  503: 'api_error',
  529: 'overloaded_error',
};

/** The text of the tool_result blocks of a request's last user message. */
function toolResults(request: RecordedRequest): string[] {
  const messages = (request.body?.messages ?? []) as { role: string; content: unknown }[];
  const last = messages[messages.length - 1]?.content;
  if (!Array.isArray(last)) return [];
  return last.flatMap((block: { type: string; content?: unknown }) => {
    if (block.type !== 'tool_result') return [];
    const content = block.content;
    return [
      typeof content === 'string' ? content : (content as { text?: string }[]).map((part) => part.text ?? '').join(''),
    ];
  });
}

const provider: StreamingContractProvider<FakeResponse, RecordedRequest> = {
  kind: 'anthropic',
  price: PRICE,
  start: () => startFakeMessagesApi(),
  thinker: (url, options) =>
    new AnthropicThinker({
      apiKey: 'sk-test',
      baseURL: url,
      model: MODEL,
      price: PRICE,
      maxToolIterations: 4,
      ...options,
    }),
  turn: (said, calls = []) =>
    message([...(said === '' ? [] : [text(said)]), ...calls.map((c) => toolUse(c.name, c.input))]),
  replyToEachPending: () => ({
    kind: 'respond',
    respond: (request) =>
      message(pendingTurnIds(request).map((turnId) => toolUse('reply', { turnId, text: `answer to ${turnId}` }))),
  }),
  error: (status) => apiError(status, ERROR_TYPES[status] ?? 'api_error', { 'retry-after-ms': '1' }),
  hang: () => ({ kind: 'hang' }),
  stallStream: (turn, events) => ({ kind: 'stall-stream', message: turn, events }),
  streamed: (request) => request.body?.stream === true,
  usageOf: (request) => (request.usage === undefined ? undefined : tokenUsageOf(request.usage)),
  toolResults,
};

thinkerContract(provider);
streamingContract(provider);
