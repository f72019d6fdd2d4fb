/**
 * The provider contract: what every thinker that calls a model must do, run against that provider's own local fake
 * server with the real SDK (as the store suite runs on every store). Each provider supplies a few lines: how to
 * start its fake, build its thinker, script its fake's answers and read what a request carried.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConversationMessage } from '../../../src/protocol/conversation.schema.js';
import { VigilError } from '../../../src/errors.js';
import { totalCostMicroUsd, type ModelPricing } from '../../../src/subsystems/thinking/pricing.js';
import type { ExternalToolResult, ThinkTools } from '../../../src/subsystems/thinking/think-tools.js';
import type { ReplyStream, Thinker } from '../../../src/subsystems/thinking/thinker.js';
import type { ThinkInput, TokenUsage } from '../../../src/subsystems/thinking/thinker.schema.js';
import { estimateTokens } from '../../../src/subsystems/thinking/token-estimate.js';
import { userMessageInput } from '../../fixtures/think-input.fixture.js';

/** A recorded request, as the contract reads it. */
export interface ContractRequest {
  readonly raw: string;
}

/** A provider's fake server, as the contract drives it. */
export interface ContractFake<Scripted, Request extends ContractRequest> {
  readonly url: string;
  readonly requests: readonly Request[];
  enqueue(...responses: Scripted[]): void;
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

/** One tool call a scripted model turn makes. */
export interface ScriptedCall {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/** What a provider supplies to run the contract. */
export interface ThinkerContractProvider<Scripted, Request extends ContractRequest> {
  /** The thinker's `kind`. */
  readonly kind: string;
  readonly price: ModelPricing;
  start(): Promise<ContractFake<Scripted, Request>>;
  thinker(url: string, options: { maxRetries: number; timeoutMs: number }): Thinker;
  /** A model turn: its text, and tool calls (the turn then asks for them to be answered). */
  turn(text: string, calls?: readonly ScriptedCall[]): Scripted;
  /** A turn made from the request: one reply tool call to each pending turn its prompt lists. */
  replyToEachPending(): Scripted;
  /** An error status, retried (when it is retryable) after 1 ms. */
  error(status: number): Scripted;
  /** A request left unanswered. */
  hang(): Scripted;
  /** The usage the fake reported for a request it answered whole, as Vigil counts it; undefined otherwise. */
  usageOf(request: Request): TokenUsage | undefined;
  /** The text of the tool results a request sent back, in order. */
  toolResults(request: Request): string[];
}

const NOW = Date.parse('2026-03-01T08:00:00Z');
const live = () => new AbortController().signal;
const ZERO: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
const sum = (all: readonly TokenUsage[]): TokenUsage =>
  all.reduce(
    (s, u) => ({
      inputTokens: s.inputTokens + u.inputTokens,
      outputTokens: s.outputTokens + u.outputTokens,
      cacheReadTokens: s.cacheReadTokens + u.cacheReadTokens,
      cacheWriteTokens: s.cacheWriteTokens + u.cacheWriteTokens,
    }),
    ZERO,
  );

/** A reply stream that records what it is given; `wanted` says whether anyone watches. */
function recordingStream(wanted = true): ReplyStream & { deltas: { turnId: string; text: string }[] } {
  const deltas: { turnId: string; text: string }[] = [];
  return { deltas, wanted: () => wanted, delta: (turnId, text) => void deltas.push({ turnId, text }) };
}

const LONG_REPLY =
  'Tides at Brest today: high water 06:12 and 18:40, "spring" range 6.1 m; low at 12:25.\nBring a coat.';

/** The VigilError a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<VigilError & { data: any }> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(VigilError);
  return err as VigilError & { data: any };
}

/** An MCP tool stub: `mcp__fixture__echo` answers `echo: <text>`; every call is recorded. */
function echoTools(): ThinkTools & { calls: { name: string; args: unknown }[] } {
  const calls: { name: string; args: unknown }[] = [];
  const definitions = [
    {
      name: 'mcp__fixture__echo',
      description: 'Echoes its text.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
  ];
  return {
    calls,
    definitions: () => definitions,
    owns: (name) => name.startsWith('mcp__'),
    call: (request): Promise<ExternalToolResult> => {
      calls.push({ name: request.name, args: request.args });
      const text = (request.args as { text?: unknown }).text;
      return Promise.resolve({
        isError: false,
        content: [{ type: 'text', text: `echo: ${String(text)}` }],
        callId: `call-${calls.length}`,
      });
    },
    notices: () => [],
    acknowledge: () => undefined,
  };
}

/** Runs the contract for one provider. */
export function thinkerContract<Scripted, Request extends ContractRequest>(
  p: ThinkerContractProvider<Scripted, Request>,
): void {
  describe(`the ${p.kind} thinker (provider contract)`, () => {
    let api: ContractFake<Scripted, Request>;
    beforeEach(async () => {
      api = await p.start();
    });
    afterEach(async () => {
      await api.close();
    });
    const thinker = (options: Partial<{ maxRetries: number; timeoutMs: number }> = {}) =>
      p.thinker(api.url, { maxRetries: options.maxRetries ?? 0, timeoutMs: options.timeoutMs ?? 5000 });
    const reported = () => api.requests.flatMap((r) => (p.usageOf(r) === undefined ? [] : [p.usageOf(r)!]));

    it('answers a message with its reply, and reports the usage and cost of every call the fake answered', async () => {
      api.enqueue(p.turn('', [{ name: 'reply', input: { turnId: 't-1', text: 'Hello, Ada.' } }]), p.turn('done'));
      const result = await thinker().think(userMessageInput('Hello?', NOW), live());
      expect(result.actions).toEqual([{ type: 'reply', turnId: 't-1', text: 'Hello, Ada.' }]);
      expect(api.requests).toHaveLength(2);
      const usages = reported();
      expect(usages).toHaveLength(2);
      expect(result.usage).toEqual(sum(usages));
      expect(result.costMicroUsd).toBe(totalCostMicroUsd(usages, p.price));
      expect(result.costMicroUsd).toBeGreaterThan(0);
      expect(result.trace?.calls.map((c) => c.inputTokens + c.cacheReadTokens + c.cacheWriteTokens)).toEqual(
        usages.map((u) => u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens),
      );
    });

    it('takes a reply written as text as the answer to the open turn', async () => {
      api.enqueue(p.turn('Paris.'));
      const result = await thinker().think(userMessageInput('The capital of France?', NOW), live());
      expect(result.actions).toEqual([{ type: 'reply', turnId: 't-1', text: 'Paris.' }]);
    });

    it('answers two pending turns in one think, each by its own turn id', async () => {
      api.enqueue(p.replyToEachPending(), p.turn(''));
      const input: ThinkInput = {
        ...userMessageInput('first', NOW),
        pendingMessages: [
          { turnId: 't-1', text: 'first', from: 'ada', at: NOW - 20 },
          { turnId: 't-2', text: 'second', from: 'ada', at: NOW - 10 },
        ],
      };
      const result = await thinker().think(input, live());
      expect(result.actions).toEqual([
        { type: 'reply', turnId: 't-1', text: 'answer to t-1' },
        { type: 'reply', turnId: 't-2', text: 'answer to t-2' },
      ]);
    });

    it('runs a tool call round trip, two calls of one turn answered in order, each tool run once', async () => {
      const tools = echoTools();
      const claude = thinker();
      claude.useTools?.(tools);
      api.enqueue(
        p.turn('', [
          { name: 'mcp__fixture__echo', input: { text: 'one' } },
          { name: 'mcp__fixture__echo', input: { text: 'two' } },
        ]),
        p.turn('', [{ name: 'reply', input: { turnId: 't-1', text: 'Echoed.' } }]),
        p.turn(''),
      );
      const result = await claude.think(userMessageInput('Echo twice.', NOW), live());
      expect(tools.calls).toEqual([
        { name: 'mcp__fixture__echo', args: { text: 'one' } },
        { name: 'mcp__fixture__echo', args: { text: 'two' } },
      ]);
      expect(p.toolResults(api.requests[1]!)).toEqual(['echo: one', 'echo: two']);
      expect(result.actions).toEqual([{ type: 'reply', turnId: 't-1', text: 'Echoed.' }]);
      expect(result.trace?.toolCalls.map((c) => [c.name, c.ok])).toEqual([
        ['mcp__fixture__echo', true],
        ['mcp__fixture__echo', true],
        ['reply', true],
      ]);
    });

    it('sends an invalid call of its own tools back as an error the model can correct', async () => {
      api.enqueue(
        p.turn('', [{ name: 'reply', input: { turnId: 't-404', text: 'x' } }]),
        p.turn('', [{ name: 'reply', input: { turnId: 't-1', text: 'ok' } }]),
        p.turn(''),
      );
      const result = await thinker().think(userMessageInput('hi', NOW), live());
      expect(p.toolResults(api.requests[1]!)[0]).toMatch(/turnId "t-404" is not known/);
      expect(result.actions).toEqual([{ type: 'reply', turnId: 't-1', text: 'ok' }]);
    });

    for (const status of [400, 404, 413, 422]) {
      it(`ends a request refused with ${status} as THINK_REJECTED, without retrying it`, async () => {
        api.enqueue(p.error(status), p.turn('never sent'));
        const err = await rejection(thinker({ maxRetries: 3 }).think(userMessageInput('hi', NOW), live()));
        expect(err.code).toBe('THINK_REJECTED');
        expect(err.data).toMatchObject({ status, retryable: false, partial: { usage: ZERO, costMicroUsd: 0 } });
        expect(api.requests).toHaveLength(1);
      });
    }

    it('stops at a refused key as THINK_AUTH_FAILED, without retrying it', async () => {
      api.enqueue(p.error(401), p.turn('never sent'));
      const err = await rejection(thinker({ maxRetries: 3 }).think(userMessageInput('hi', NOW), live()));
      expect(err.code).toBe('THINK_AUTH_FAILED');
      expect(api.requests).toHaveLength(1);
    });

    it('retries a 429 and a 529 and then answers, charging only the answered call', async () => {
      api.enqueue(p.error(429), p.error(529), p.turn('Hello.'));
      const result = await thinker({ maxRetries: 2 }).think(userMessageInput('hi', NOW), live());
      expect(result.actions).toEqual([{ type: 'reply', turnId: 't-1', text: 'Hello.' }]);
      expect(api.requests).toHaveLength(3);
      expect(result.usage).toEqual(sum(reported()));
      expect(result.trace?.calls).toHaveLength(1);
      expect(result.trace?.calls[0]!.retries).toBe(2);
    });

    it('fails a 5xx that outlasts the retries as THINK_FAILED, retryable on a later beat', async () => {
      api.enqueue(p.error(503), p.error(503));
      const err = await rejection(thinker({ maxRetries: 1 }).think(userMessageInput('hi', NOW), live()));
      expect(err.code).toBe('THINK_FAILED');
      expect(err.data).toMatchObject({ status: 503, retryable: true });
      expect(api.requests).toHaveLength(2);
    });

    it('gives up on a stalled request at its timeout as a retryable THINK_FAILED', async () => {
      api.enqueue(p.hang());
      const err = await rejection(thinker({ timeoutMs: 300 }).think(userMessageInput('hi', NOW), live()));
      expect(err.code).toBe('THINK_FAILED');
      expect(err.data).toMatchObject({ status: undefined, retryable: true });
    });

    it('ends a stalled request at once when the think is aborted, as THINK_ABORTED with what was spent', async () => {
      api.enqueue(p.turn('', [{ name: 'remember', input: { content: 'Ada likes tea', salience: 0.5 } }]), p.hang());
      const controller = new AbortController();
      const think = thinker().think(userMessageInput('hi', NOW), controller.signal);
      await api.waitForRequests(2);
      controller.abort(new Error('preempted'));
      const err = await rejection(think);
      expect(err.code).toBe('THINK_ABORTED');
      const first = reported();
      expect(err.data.partial).toMatchObject({ usage: sum(first), costMicroUsd: totalCostMicroUsd(first, p.price) });
      // The call that completed keeps its action: the work done before the preemption is not thrown away.
      expect(err.data.partial.actions).toEqual([{ type: 'remember', content: 'Ada likes tea', salience: 0.5 }]);
    });

    it('reads a repeated prefix from the prompt cache, and prices the read as a cache read', async () => {
      const claude = thinker();
      api.enqueue(p.turn('one'), p.turn('two'));
      await claude.think(userMessageInput('first', NOW), live());
      const second = await claude.think(userMessageInput('second', NOW + 1000), live());
      expect(second.usage.cacheReadTokens).toBeGreaterThan(1000);
      expect(second.costMicroUsd).toBe(totalCostMicroUsd([p.usageOf(api.requests[1]!)!], p.price));
    });

    it('keeps every request under VIGIL_CONTEXT_TOKENS however long the conversation, and refuses one that cannot fit before any request', async () => {
      const bound = 9000;
      const recent: ConversationMessage[] = Array.from({ length: 300 }, (_, i) => ({
        seq: i + 1,
        turnId: `h-${i}`,
        role: i % 2 === 0 ? 'user' : 'assistant',
        text: `entry ${i} ${'some words here '.repeat(20)}`,
        at: NOW - (300 - i) * 1000,
      }));
      api.enqueue(p.turn('', [{ name: 'reply', input: { turnId: 't-1', text: 'ok' } }]), p.turn(''));
      const claude = thinker();
      await claude.think(
        { ...userMessageInput('What did we say?', NOW), contextTokens: bound, conversation: { summary: null, recent } },
        live(),
      );
      expect(api.requests).toHaveLength(2);
      for (const request of api.requests) expect(estimateTokens(request.raw)).toBeLessThanOrEqual(bound);
      expect(api.requests[0]!.raw).toContain('entry 299');
      expect(api.requests[0]!.raw).not.toContain('entry 0 ');

      const refused = await rejection(claude.think({ ...userMessageInput('hello', NOW), contextTokens: 1000 }, live()));
      expect(refused.code).toBe('CONTEXT_TOO_SMALL');
      expect(api.requests).toHaveLength(2);
    });
  });
}

/** A provider whose thinker streams replies (`useReplyStream`): what its fake adds for the streaming contract. */
export interface StreamingContractProvider<Scripted, Request extends ContractRequest> extends ThinkerContractProvider<
  Scripted,
  Request
> {
  /** `turn` streamed (to a request asking for a stream) as far as its first `events` events, then stalled. */
  stallStream(turn: Scripted, events: number): Scripted;
  /** Whether the request asked for a streamed reply. */
  streamed(request: Request): boolean;
}

/** The streaming part of the contract: `agent.reply_delta`'s source, for a provider whose thinker streams. */
export function streamingContract<Scripted, Request extends ContractRequest>(
  p: StreamingContractProvider<Scripted, Request>,
): void {
  describe(`the ${p.kind} thinker streaming replies (provider contract)`, () => {
    let api: ContractFake<Scripted, Request>;
    beforeEach(async () => {
      api = await p.start();
    });
    afterEach(async () => {
      await api.close();
    });
    const thinker = (options: Partial<{ timeoutMs: number }> = {}) =>
      p.thinker(api.url, { maxRetries: 0, timeoutMs: options.timeoutMs ?? 5000 });
    const reported = () => api.requests.flatMap((r) => (p.usageOf(r) === undefined ? [] : [p.usageOf(r)!]));

    it('streams a reply while someone watches: its text in pieces, in order, the whole of them the final reply', async () => {
      const stream = recordingStream();
      const t = thinker();
      t.useReplyStream!(stream);
      api.enqueue(p.turn('', [{ name: 'reply', input: { turnId: 't-1', text: LONG_REPLY } }]), p.turn('done'));
      const result = await t.think(userMessageInput('Tides?', NOW), live());
      expect(p.streamed(api.requests[0]!)).toBe(true);
      expect(stream.deltas.length).toBeGreaterThan(2);
      expect(stream.deltas.every((d) => d.turnId === 't-1')).toBe(true);
      expect(stream.deltas.map((d) => d.text).join('')).toBe(LONG_REPLY);
      expect(result.actions).toEqual([{ type: 'reply', turnId: 't-1', text: LONG_REPLY }]);
      expect(result.usage).toEqual(sum(reported()));
    });

    it('asks for a whole reply when no one watches, and streams nothing', async () => {
      const stream = recordingStream(false);
      const t = thinker();
      t.useReplyStream!(stream);
      api.enqueue(p.turn('', [{ name: 'reply', input: { turnId: 't-1', text: LONG_REPLY } }]), p.turn('done'));
      const result = await t.think(userMessageInput('Tides?', NOW), live());
      expect(api.requests.map((r) => p.streamed(r))).toEqual([false, false]);
      expect(stream.deltas).toEqual([]);
      expect(result.actions).toEqual([{ type: 'reply', turnId: 't-1', text: LONG_REPLY }]);
    });

    const joined = (deltas: readonly { text: string }[]) => deltas.map((d) => d.text).join('');
    /** The turn's final text as settle-think.ts writes it: its replies joined by a blank line. */
    const finalText = (actions: readonly { type: string; turnId?: string; text?: string }[], turnId: string) =>
      actions.flatMap((a) => (a.type === 'reply' && a.turnId === turnId ? [a.text] : [])).join('\n\n');

    it('streams a reply written as text in pieces, without the space around it: the whole of them the final reply', async () => {
      const stream = recordingStream();
      const t = thinker();
      t.useReplyStream!(stream);
      api.enqueue(p.turn(`\n  ${LONG_REPLY} \n\n`));
      const result = await t.think(userMessageInput('Tides?', NOW), live());
      expect(p.streamed(api.requests[0]!)).toBe(true);
      expect(stream.deltas.length).toBeGreaterThan(2);
      expect(stream.deltas.every((d) => d.turnId === 't-1')).toBe(true);
      expect(joined(stream.deltas)).toBe(LONG_REPLY);
      expect(result.actions).toEqual([{ type: 'reply', turnId: 't-1', text: LONG_REPLY }]);
    });

    it('keeps text it streamed before a tool call as the start of the reply: no piece is ever taken back', async () => {
      const stream = recordingStream();
      const t = thinker();
      t.useReplyStream!(stream);
      t.useTools!(echoTools());
      api.enqueue(p.turn('Let me look that up.', [{ name: 'mcp__fixture__echo', input: { text: 'tides' } }]));
      api.enqueue(p.turn(LONG_REPLY));
      const result = await t.think(userMessageInput('Tides?', NOW), live());
      expect(result.actions).toEqual([
        { type: 'reply', turnId: 't-1', text: 'Let me look that up.' },
        { type: 'reply', turnId: 't-1', text: LONG_REPLY },
      ]);
      expect(stream.deltas.every((d) => d.turnId === 't-1')).toBe(true);
      expect(joined(stream.deltas)).toBe(`Let me look that up.\n\n${LONG_REPLY}`);
      expect(joined(stream.deltas)).toBe(finalText(result.actions, 't-1'));
    });

    it('keeps text it streamed before a reply call as the start of that reply, and streams no text after it', async () => {
      const stream = recordingStream();
      const t = thinker();
      t.useReplyStream!(stream);
      api.enqueue(p.turn('One moment.', [{ name: 'reply', input: { turnId: 't-1', text: LONG_REPLY } }]));
      api.enqueue(p.turn('Replied; nothing else to do.'));
      const result = await t.think(userMessageInput('Tides?', NOW), live());
      expect(result.actions).toEqual([
        { type: 'reply', turnId: 't-1', text: 'One moment.' },
        { type: 'reply', turnId: 't-1', text: LONG_REPLY },
      ]);
      expect(joined(stream.deltas)).toBe(`One moment.\n\n${LONG_REPLY}`);
      expect(joined(stream.deltas)).toBe(finalText(result.actions, 't-1'));
    });

    it('answers alike while no one watches: text before a tool call is the start of the reply, streamed or not', async () => {
      const stream = recordingStream(false);
      const t = thinker();
      t.useReplyStream!(stream);
      t.useTools!(echoTools());
      api.enqueue(p.turn('Let me look that up.', [{ name: 'mcp__fixture__echo', input: { text: 'tides' } }]));
      api.enqueue(p.turn(LONG_REPLY));
      const result = await t.think(userMessageInput('Tides?', NOW), live());
      expect(api.requests.map((r) => p.streamed(r))).toEqual([false, false]);
      expect(stream.deltas).toEqual([]);
      expect(result.actions).toEqual([
        { type: 'reply', turnId: 't-1', text: 'Let me look that up.' },
        { type: 'reply', turnId: 't-1', text: LONG_REPLY },
      ]);
    });

    it("streams text to the turn it answers, the newest pending one when the think's own is not", async () => {
      const stream = recordingStream();
      const t = thinker();
      t.useReplyStream!(stream);
      api.enqueue(p.turn(LONG_REPLY));
      const input: ThinkInput = {
        ...userMessageInput('first', NOW),
        reason: 'goal_work',
        turnId: 'auto-1',
        pendingMessages: [
          { turnId: 't-1', text: 'first', from: 'ada', at: NOW - 20 },
          { turnId: 't-2', text: 'second', from: 'ada', at: NOW - 10 },
        ],
      };
      const result = await t.think(input, live());
      expect(result.actions).toEqual([{ type: 'reply', turnId: 't-2', text: LONG_REPLY }]);
      expect(stream.deltas.length).toBeGreaterThan(2);
      expect(stream.deltas.every((d) => d.turnId === 't-2')).toBe(true);
      expect(joined(stream.deltas)).toBe(LONG_REPLY);
    });

    it('keeps the turn open for a tool call waiting for an operator: the text streamed before it is no reply (the one draft left)', async () => {
      const stream = recordingStream();
      const t = thinker();
      t.useReplyStream!(stream);
      const held: ThinkTools = {
        ...echoTools(),
        call: () =>
          Promise.resolve({
            isError: false,
            content: [{ type: 'text', text: 'waits for approval' }],
            pendingApproval: 'c-1',
          }),
      };
      t.useTools!(held);
      api.enqueue(p.turn('I will ask for approval.', [{ name: 'mcp__fixture__echo', input: { text: 'ship it' } }]));
      api.enqueue(p.turn('Asked; waiting for the operator.'));
      const result = await t.think(userMessageInput('Ship it.', NOW), live());
      expect(result.actions).toEqual([]);
      expect(joined(stream.deltas)).toBe('I will ask for approval.');
    });

    it('gives up on a stream that stalls mid-reply as a retryable THINK_FAILED; the part streamed is never a reply', async () => {
      const stream = recordingStream();
      const t = thinker({ timeoutMs: 300 });
      t.useReplyStream!(stream);
      api.enqueue(p.stallStream(p.turn('', [{ name: 'reply', input: { turnId: 't-1', text: LONG_REPLY } }]), 8));
      const err = await rejection(t.think(userMessageInput('Tides?', NOW), live()));
      expect(err.code).toBe('THINK_FAILED');
      expect(err.data).toMatchObject({ retryable: true });
      const streamed = stream.deltas.map((d) => d.text).join('');
      expect(streamed.length).toBeGreaterThan(0);
      expect(LONG_REPLY.startsWith(streamed) && streamed !== LONG_REPLY).toBe(true);
      // Nothing applied, nothing charged: the cut reply goes nowhere but the live pieces already seen.
      expect(err.data.partial).toMatchObject({ actions: [], costMicroUsd: 0 });
    });
  });
}
