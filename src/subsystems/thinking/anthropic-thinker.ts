/** The Anthropic thinker: Claude through the Messages API with one tool per action, a bounded tool loop and prompt caching. */
import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { VigilError } from '../../errors.js';
import { estimateTokens } from './token-estimate.js';
import { MalformedResponseError, abortedError, callError } from './anthropic-errors.js';
import { taskSystem, thinkSystem } from './anthropic-prompt.js';
import { summarizeWithClaude } from './anthropic-summary.js';
import {
  boundedParams,
  sectionTrace,
  type BoundedRequest,
  type BoundedRequestParts,
  type CallParams,
} from './anthropic-bounded-request.js';
import type { SummaryRequest, SummaryResult } from './summary-request.js';
import { TokenCalibration } from './token-calibration.js';
import { DEFAULT_CONTEXT_TOKENS } from './context-defaults.js';
import { requestTools, type ToolContext } from './anthropic-tools.js';
import { attemptCountingFetch, CallTraceRecorder } from './call-trace-recorder.js';
import { streamingFetch } from './buffered-fetch.js';
import { streamedMessage } from './anthropic-stream.js';
import { ThinkDeltas, type CallListener } from './reply-deltas.js';
import { messageText } from './prompt-sections.js';
import { taskOfferableTools, type ThinkTools } from './think-tools.js';
import { sumUsage, textBeforeTools, textOf, tokenUsage, toolResultBlock } from './anthropic-content.js';
import { cachePrefixOf, type CachePrefix } from './cache-health.js';
import { CacheHealth, type CacheHealthDeps } from './cache-health-monitor.js';
import { priceForCacheTtl, withCacheTtl, type CacheTtl } from './cache-ttl.js';
import type { MemoryRecall } from './recall-tool.js';
import type { ModelSchedules } from './schedule-tools.js';
import { totalCostMicroUsd, type ModelPricing } from './pricing.js';
import { checkedThinkerSettings, type ModelThinkerOptions } from './thinker-settings.js';
import { runTaskLoop, type TaskModel } from './task-tool-loop.js';
import { anthropicTaskConversation, type AnthropicTaskDeps } from './anthropic-task.js';
import { ThinkSession } from './think-session.js';
import { runThinkLoop, toolDispatcher, type ThinkLoopModel } from './think-tool-loop.js';
import type { ReplyStream, TaskHooks, Thinker } from './thinker.js';
import type { SwarmTaskInput, SwarmTaskOutput, ThinkInput, ThinkResult, TokenUsage } from './thinker.schema.js';

/** Options of the Anthropic thinker. */
export interface AnthropicThinkerOptions extends ModelThinkerOptions {
  /** The API key (sent by the SDK as a bearer token). */
  apiKey: string;
  /** Another base URL for the Messages API (a proxy, or the fake server in tests); unset: the SDK default. */
  baseURL?: string;
  /** A ready client (tests, custom fetch or middleware); when given, apiKey, baseURL, maxRetries and timeoutMs are unused (and its retries are not counted in traces). */
  client?: Anthropic;
  /** Lifetime of the prompt cache's entries (`VIGIL_CACHE_TTL`, default 5m); 1h writes are priced at twice base input. */
  cacheTtl?: CacheTtl;
}

const DEFAULT_MAX_RETRIES = 4;
const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_TOKENS = 4096;

/** Thinks with Claude. Money is charged per completed call: an abort or a failure still reports what was spent. */
export class AnthropicThinker implements Thinker {
  readonly kind = 'anthropic';
  readonly model: string;
  readonly price: ModelPricing;
  readonly maxToolIterations: number;
  readonly maxTokens: number;
  private readonly client: Anthropic;
  private readonly now: () => number;
  private tools: ThinkTools | undefined;
  readonly cacheTtl: CacheTtl;
  private cacheHealth: CacheHealth | undefined;
  private bus: CacheHealthDeps['bus'] | undefined;
  /** Calibrates the prompt bound's token estimate against the usage the API reports. */
  readonly calibration = new TokenCalibration();
  private memory: MemoryRecall | undefined;
  private schedules: ModelSchedules | undefined;
  private replies: ReplyStream | undefined;

  constructor(options: AnthropicThinkerOptions) {
    const { maxToolIterations: guard, price } = checkedThinkerSettings(options);
    this.model = options.model;
    this.cacheTtl = options.cacheTtl ?? '5m';
    this.price = priceForCacheTtl(price, this.cacheTtl);
    this.maxToolIterations = guard;
    this.maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
    this.client =
      options.client ??
      new Anthropic({
        apiKey: options.apiKey,
        baseURL: options.baseURL,
        maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
        timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        fetch: attemptCountingFetch(streamingFetch(options.timeoutMs ?? DEFAULT_TIMEOUT_MS)),
      });
    this.now = options.now ?? Date.now;
  }

  /** Offers the runtime's MCP tools to the model from the next think on. */
  useTools(tools: ThinkTools): void {
    this.tools = tools;
  }

  /** Reports cache health and implausible usage on `deps.bus` from now on, starting with `identity`'s think prefix. */
  useCacheHealth(deps: CacheHealthDeps, identity: string): void {
    this.cacheHealth = new CacheHealth({ ...deps, model: this.model, ttl: this.cacheTtl });
    this.bus = deps.bus;
    this.cacheHealth.checkPrefix(this.cachedParts('think', identity).prefix);
  }

  /** The cached parts of a request (tools, system with the configured lifetime) and the prefix they make. */
  private cachedParts(kind: 'think' | 'task' | 'task-with-tools', identity: string) {
    const tools = withCacheTtl(requestTools(this.tools?.definitions() ?? []), this.cacheTtl);
    const system = withCacheTtl(
      kind === 'think' ? thinkSystem(identity) : taskSystem(identity, kind === 'task-with-tools'),
      this.cacheTtl,
    );
    return { tools, system, prefix: cachePrefixOf(kind === 'think' ? 'think' : 'task', tools, system) };
  }

  private observeCache(prefix: CachePrefix, usage: TokenUsage): TokenUsage {
    this.cacheHealth?.observe(prefix, usage);
    return usage;
  }

  /** Answers the model's `recall` calls from the runtime's long-term memory. */
  useMemory(memory: MemoryRecall): void {
    this.memory = memory;
  }

  /** Answers the model's `schedule_*` calls from the runtime's schedules. */
  useSchedules(schedules: ModelSchedules): void {
    this.schedules = schedules;
  }

  /** Streams each think's replies to `stream` while someone watches (the request then asks for a stream). */
  useReplyStream(stream: ReplyStream): void {
    this.replies = stream;
  }

  /** Runs the tool loop (think-tool-loop.ts) until the model ends its turn or the iteration guard stops it. */
  async think(input: ThinkInput, signal: AbortSignal): Promise<ThinkResult> {
    const what = `think for turn ${input.turnId}`;
    const recorder = new CallTraceRecorder(this.model, this.price, this.now);
    const tools = this.tools === undefined ? undefined : recorder.traced(this.tools);
    const ctx: ToolContext = {
      turnIds: [...new Set([...input.pendingMessages.map((m) => m.turnId), input.turnId])],
      goalIds: input.goals.map((g) => g.id),
      taskTools: taskOfferableTools(tools?.definitions() ?? []).map((t) => t.name),
    };
    // One snapshot per think: the list stays the same for all its calls, and is the same array while nothing changed.
    const { tools: toolDefs, system, prefix } = this.cachedParts('think', input.identity);
    const session = new ThinkSession(this, recorder, system);
    const deltas = new ThinkDeltas(this.replies, ctx.turnIds);
    const partial = () => session.partial(signal.aborted);
    this.cacheHealth?.checkPrefix(prefix);
    // Calls a crash left unknown are told to the next think of their turn, as notices of the state message.
    const notices = tools?.notices(ctx.turnIds) ?? [];
    const shown =
      notices.length === 0 ? input : { ...input, notices: [...input.notices, ...notices.map((n) => n.line)] };
    const parts = {
      prefix: system,
      toolDefs,
      tail: [] as MessageParam[],
      bound: input.contextTokens ?? DEFAULT_CONTEXT_TOKENS,
      cacheTtl: this.cacheTtl,
      // Measured as streamed (with `stream: true`, a few tokens more): the bound then holds whether or not it streams.
      body: (p: CallParams) => ({ ...this.body(p), stream: true }),
    };
    this.calibration.beginThink(this.now());
    const model: ThinkLoopModel<Message> = {
      maxIterations: this.maxToolIterations,
      call: async (n) => {
        const request = this.requestOrFull(shown, parts, n);
        if (request === null) return null;
        if (n === 1)
          session.promptBuilt(sectionTrace(parts, request), request.built.conversation.join('') + request.built.state);
        // Streamed only while someone watches (reply-deltas.ts): the message is the same either way (MessageStream
        // assembles it).
        const plainTurn = session.plainTextTurn(input);
        const streaming = deltas.nextCall(plainTurn);
        const response = await this.create(request.params, signal, `${what} (call ${n})`, partial, {
          recorder,
          streaming,
        });
        const usage = this.observeCache(prefix, tokenUsage(response.usage));
        const [estimated, reported] = [
          estimateTokens(JSON.stringify(this.body(request.params))),
          usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
        ];
        if (this.calibration.observe(estimated, reported) === 'implausible')
          this.bus?.emit('think.usage_implausible', { reported, estimated });
        session.replied(usage, messageText(response.content), textOf(response.content));
        // Before the call's tool calls are applied: its text answers first, whatever they do (reply-deltas.ts).
        session.answeredInText(plainTurn, textBeforeTools(response.content));
        return response;
      },
      toolUses: (response) => response.content.flatMap((block) => (block.type === 'tool_use' ? [block] : [])),
      wantsTools: (response) => response.stop_reason === 'tool_use',
      append: (response, answers) => {
        const results = answers.map(toolResultBlock);
        // The assistant turn goes back verbatim (thinking blocks included), followed by one result per tool_use.
        parts.tail.push({ role: 'assistant', content: response.content }, { role: 'user', content: results });
        session.toolResultsSent(messageText(results));
      },
    };
    const dispatch = toolDispatcher(
      { tools, memory: this.memory, schedules: this.schedules, ctx, turnId: input.turnId },
      session,
      signal,
    );
    await runThinkLoop(model, dispatch, () => this.checkAborted(signal, what, partial));
    tools?.acknowledge(notices.map((n) => n.callId));
    return session.finished(input);
  }

  /**
   * Call `n`'s bounded request; null when what the tool loop added no longer leaves room for the state (the think
   * ends with what it has done). The first call has nothing to end with: its CONTEXT_TOO_SMALL fails the think.
   */
  private requestOrFull(input: ThinkInput, parts: BoundedRequestParts, n: number): BoundedRequest | null {
    try {
      return boundedParams(input, parts, this.calibration);
    } catch (err) {
      if (n > 1 && err instanceof VigilError && err.code === 'CONTEXT_TOO_SMALL') return null;
      throw err;
    }
  }

  /** Updates the rolling summary with one model call, bounded like a think; its cost is returned for the ledger. */
  async summarize(request: SummaryRequest, signal: AbortSignal): Promise<SummaryResult> {
    const what = 'conversation summary update';
    const empty = () => ({ text: '', ...this.usageAndCost([]), model: this.model });
    this.checkAborted(signal, what, empty);
    return summarizeWithClaude(request, {
      counter: this.calibration,
      send: async (params) => {
        const response = await this.create(params, signal, what, empty);
        const usage = tokenUsage(response.usage);
        return { text: textOf(response.content), ...this.usageAndCost([usage]), model: this.model };
      },
      maxTokens: this.maxTokens,
      model: this.model,
    });
  }

  /** The whole request body as the SDK sends it (streamed: with `stream: true` added), for the bound's measure. */
  private body(params: CallParams): MessageCreateParamsNonStreaming {
    return { model: this.model, max_tokens: this.maxTokens, ...params };
  }

  /**
   * A sub-agent task: its tool loop (task-tool-loop.ts) under the think's cached prefix (its tools and system, so the
   * cache the thinks keep warm is read), the sub-agent instruction after it, and only its own tools callable.
   */
  runTask(input: SwarmTaskInput, signal: AbortSignal, hooks?: TaskHooks): Promise<SwarmTaskOutput> {
    const deps: AnthropicTaskDeps = {
      create: (params, callSignal, what, partial) => this.create(params, callSignal, what, partial),
      cachedParts: (withTools) => {
        const { tools, system, prefix } = this.cachedParts(withTools ? 'task-with-tools' : 'task', input.identity);
        this.cacheHealth?.checkPrefix(prefix);
        return { tools, system, observe: (usage) => this.observeCache(prefix, usage) };
      },
    };
    const model: TaskModel<Message> = {
      model: this.model,
      price: this.price,
      maxIterations: this.maxToolIterations,
      checkAborted: (callSignal, what, partial) => this.checkAborted(callSignal, what, partial),
      start: (task, own) => anthropicTaskConversation(deps, task, own),
    };
    return runTaskLoop(model, this.tools, input, signal, hooks);
  }

  private async create(
    params: CallParams,
    signal: AbortSignal,
    what: string,
    partial: () => unknown,
    extra: { recorder?: CallTraceRecorder; streaming?: CallListener | undefined } = {},
  ): Promise<Message> {
    const { recorder, streaming } = extra;
    const send = async () => {
      const body = this.body(params);
      const response =
        streaming === undefined
          ? await this.client.messages.create(body, { signal })
          : await streamedMessage(this.client, body, signal, streaming);
      if (!Array.isArray(response?.content)) throw new MalformedResponseError('the response has no content array');
      return response;
    };
    try {
      return recorder === undefined
        ? await send()
        : await recorder.modelCall(send, (response) => tokenUsage(response.usage));
    } catch (err) {
      throw callError(err, what, signal, partial());
    }
  }

  private checkAborted(signal: AbortSignal, what: string, partial: () => unknown): void {
    if (signal.aborted) throw abortedError(what, partial(), signal.reason);
  }

  private usageAndCost(calls: readonly TokenUsage[]): { usage: TokenUsage; costMicroUsd: number } {
    return { usage: sumUsage(calls), costMicroUsd: totalCostMicroUsd(calls, this.price) };
  }
}
