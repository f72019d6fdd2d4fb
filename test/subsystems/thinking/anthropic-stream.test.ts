/**
 * The Anthropic thinker's streamed calls beyond the shared contract: the message MessageStream assembles is the one a
 * whole reply gives (blocks, usage with cache reads and writes, cost, trace), the SDK's retries still run before a
 * stream begins, and a stream that fails mid-reply (an error event, an end before message_stop, an abort) is never
 * taken as a reply.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VigilError } from '../../../src/errors.js';
import { AnthropicThinker } from '../../../src/subsystems/thinking/anthropic-thinker.js';
import { resolvePrice } from '../../../src/subsystems/thinking/pricing.js';
import type { ReplyStream } from '../../../src/subsystems/thinking/thinker.js';
import type { ThinkResult } from '../../../src/subsystems/thinking/thinker.schema.js';
import {
  apiError,
  message,
  startFakeMessagesApi,
  text,
  toolUse,
  type FakeMessagesApi,
  type FakeResponse,
} from '../../fixtures/fake-messages-api.js';
import { messageEvents, type StreamedMessage } from '../../fixtures/fake-messages-stream.js';
import { userMessageInput } from '../../fixtures/think-input.fixture.js';

const MODEL = 'claude-sonnet-4-6';
const PRICE = resolvePrice(MODEL);
const NOW = Date.parse('2026-03-01T08:00:00Z');
const REPLY = 'High water at Brest: 06:12 and 18:40 today. Bring a coat.';
const live = () => new AbortController().signal;

let apis: FakeMessagesApi[] = [];
beforeEach(() => {
  apis = [];
});
afterEach(async () => {
  await Promise.all(apis.map((api) => api.close()));
});

async function fake(): Promise<FakeMessagesApi> {
  const api = await startFakeMessagesApi({ now: () => NOW });
  apis.push(api);
  return api;
}

function recordingStream(): ReplyStream & { deltas: string[] } {
  const deltas: string[] = [];
  return { deltas, wanted: () => true, delta: (_turnId, piece) => void deltas.push(piece) };
}

function thinker(api: FakeMessagesApi, stream?: ReplyStream): AnthropicThinker {
  const t = new AnthropicThinker({
    apiKey: 'sk-test',
    baseURL: api.url,
    model: MODEL,
    price: PRICE,
    maxToolIterations: 4,
    maxRetries: 2,
    timeoutMs: 5000,
  });
  if (stream !== undefined) t.useReplyStream(stream);
  return t;
}

async function rejection(promise: Promise<unknown>): Promise<VigilError & { data: any }> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(VigilError);
  return err as VigilError & { data: any };
}

/** A server-sent events body as the API would send it, cut after `events` events. */
function sseBody(answer: StreamedMessage, events: number, tail = ''): FakeResponse {
  const sent = messageEvents(answer).slice(0, events);
  return {
    kind: 'raw',
    headers: { 'content-type': 'text/event-stream' },
    text: sent.map((e) => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`).join('') + tail,
  };
}

const STREAMED: StreamedMessage = {
  id: 'msg_cut',
  model: MODEL,
  content: [{ type: 'tool_use', id: 'toolu_cut', name: 'reply', input: { turnId: 't-1', text: REPLY } }],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 900, output_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
};

describe('the Anthropic thinker streaming a reply', () => {
  it('gets from a stream the same result as from a whole reply: actions, usage with cache reads and writes, cost, trace', async () => {
    const script = (): FakeResponse[] => [
      message([text('Checking.'), toolUse('reply', { turnId: 't-1', text: REPLY }, 'toolu_same')]),
      message([text('done')]),
    ];
    const results: ThinkResult[][] = [];
    for (const streamed of [false, true]) {
      const api = await fake();
      const t = thinker(api, streamed ? recordingStream() : undefined);
      api.enqueue(...script(), ...script());
      // Two thinks: the second reads the prefix the first wrote to the prompt cache.
      const first = await t.think(userMessageInput('Tides?', NOW), live());
      const second = await t.think(userMessageInput('Tides again?', NOW + 1000), live());
      expect(api.requests.map((r) => r.body?.stream === true)).toEqual([streamed, streamed, streamed, streamed]);
      results.push([first, second]);
    }
    const [whole, streamed] = results as [ThinkResult[], ThinkResult[]];
    expect(streamed[1]!.usage.cacheReadTokens).toBeGreaterThan(1000);
    expect(streamed[0]!.usage.cacheWriteTokens).toBeGreaterThan(1000);
    for (const i of [0, 1]) {
      expect(streamed[i]!.actions).toEqual(whole[i]!.actions);
      expect(streamed[i]!.usage).toEqual(whole[i]!.usage);
      expect(streamed[i]!.costMicroUsd).toBe(whole[i]!.costMicroUsd);
      expect(streamed[i]!.trace?.calls.map((c) => [c.inputTokens, c.outputTokens, c.cacheReadTokens])).toEqual(
        whole[i]!.trace?.calls.map((c) => [c.inputTokens, c.outputTokens, c.cacheReadTokens]),
      );
    }
  });

  it('sends back the streamed assistant turn verbatim, its tool input whole', async () => {
    const api = await fake();
    api.enqueue(message([toolUse('reply', { turnId: 't-1', text: REPLY }, 'toolu_back')]), message([text('done')]));
    await thinker(api, recordingStream()).think(userMessageInput('Tides?', NOW), live());
    const sentBack = api.requests[1]!.body.messages.at(-2);
    expect(sentBack).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id: 'toolu_back',
          name: 'reply',
          input: { turnId: 't-1', text: REPLY },
          caller: { type: 'direct' },
        },
      ],
    });
  });

  it('lets the SDK retry a 529 before the stream begins; only the answered stream is heard and charged', async () => {
    const api = await fake();
    const stream = recordingStream();
    api.enqueue(
      apiError(529, 'overloaded_error', { 'retry-after-ms': '1' }),
      message([toolUse('reply', { turnId: 't-1', text: REPLY })]),
      message([text('done')]),
    );
    const result = await thinker(api, stream).think(userMessageInput('Tides?', NOW), live());
    expect(stream.deltas.join('')).toBe(REPLY);
    expect(result.actions).toEqual([{ type: 'reply', turnId: 't-1', text: REPLY }]);
    expect(result.trace?.calls[0]!.retries).toBe(1);
  });

  it('fails on an error event mid-stream as a retryable THINK_FAILED; the part streamed is no reply', async () => {
    const api = await fake();
    const stream = recordingStream();
    const overloaded = `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`;
    api.enqueue(sseBody(STREAMED, 12, overloaded));
    const err = await rejection(thinker(api, stream).think(userMessageInput('Tides?', NOW), live()));
    expect(err.code).toBe('THINK_FAILED');
    expect(err.data).toMatchObject({ status: undefined, retryable: true, partial: { actions: [], costMicroUsd: 0 } });
    expect(err.message).toMatch(/Overloaded/);
    expect(stream.deltas.join('').length).toBeGreaterThan(0);
  });

  it('fails on a stream that ends before message_stop as a retryable THINK_FAILED, even with every block whole', async () => {
    const api = await fake();
    const events = messageEvents(STREAMED).length;
    api.enqueue(sseBody(STREAMED, events - 1));
    const stream = recordingStream();
    const err = await rejection(thinker(api, stream).think(userMessageInput('Tides?', NOW), live()));
    expect(err.code).toBe('THINK_FAILED');
    expect(err.data).toMatchObject({ retryable: true, partial: { actions: [], costMicroUsd: 0 } });
    expect(err.message).toMatch(/message_stop/);
    expect(stream.deltas.join('')).toBe(REPLY);
  });

  it('ends a stream at once when the think is aborted, as THINK_ABORTED', async () => {
    const api = await fake();
    let reached: () => void = () => undefined;
    const midway = new Promise<void>((resolve) => (reached = resolve));
    api.enqueue({
      kind: 'paced-stream',
      message: message([toolUse('reply', { turnId: 't-1', text: REPLY })]),
      pace: (i) => (i < 6 ? undefined : i === 6 ? (reached(), new Promise<void>(() => undefined)) : undefined),
    });
    const controller = new AbortController();
    const think = thinker(api, recordingStream()).think(userMessageInput('Tides?', NOW), controller.signal);
    await midway;
    controller.abort(new Error('preempted'));
    const err = await rejection(think);
    expect(err.code).toBe('THINK_ABORTED');
    expect(err.data.partial).toMatchObject({ actions: [], costMicroUsd: 0 });
  });
});
