/** The Anthropic thinker: Claude through the Messages API with one tool per action, a bounded tool loop and prompt caching. */
import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { MalformedResponseError, abortedError, callError } from './anthropic-errors.js';
import { taskSystem, thinkSystem } from './anthropic-prompt.js';
import { boundedParams, sectionTrace, type CallParams } from './anthropic-bounded-request.js';
import type { SummaryRequest, SummaryResult } from './summary-request.js';
import { TokenCalibration } from './token-calibration.js';
import { DEFAULT_CONTEXT_TOKENS } from './context-defaults.js';
import { requestTools } from './anthropic-tools.js';
import { attemptCountingFetch, type CallTraceRecorder } from './call-trace-recorder.js';
import { streamingFetch } from './buffered-fetch.js';
import { streamedMessage } from './anthropic-stream.js';
import type { CallListener } from './reply-deltas.js';
import { messageText } from './prompt-sections.js';
import type { ThinkTools } from './think-tools.js';
import { textBeforeTools, textOf, tokenUsage, toolResultBlock } from './anthropic-content.js';
import { cachePrefixOf, type CachePrefix } from './cache-health.js';
import { CacheHealth, type CacheHealthDeps } from './cache-health-monitor.js';
import { priceForCacheTtl, withCacheTtl, type CacheTtl } from './cache-ttl.js';
import type { MemoryRecall } from './recall-tool.js';
import type { ModelSchedules } from './schedule-tools.js';
import type { ModelPricing } from './pricing.js';
import { checkedThinkerSettings, type ModelThinkerOptions } from './thinker-settings.js';
import { anthropicTaskConversation, type AnthropicTaskDeps } from './anthropic-task.js';
import {
  runModelSummary,
  runModelTask,
  runModelThink,
  type ThinkerGiven,
  type ThinkerParts,
  type ThinkProvider,
} from './model-think.js';
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
export class AnthropicThinker implements Thinker, ThinkerParts {
  readonly kind = 'anthropic';
  readonly model: string;
  readonly price: ModelPricing;
  readonly maxToolIterations: number;
  readonly maxTokens: number;
  private readonly client: Anthropic;
  readonly now: () => number;
  /** What the runtime gave it: tools, memory, schedules, the reply stream, the bus (model-think.ts). */
  readonly given: ThinkerGiven = {};
  readonly cacheTtl: CacheTtl;
  private cacheHealth: CacheHealth | undefined;
  /** Calibrates the prompt bound's token estimate against the usage the API reports. */
  readonly calibration = new TokenCalibration();

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
    this.given.tools = tools;
  }

  /** Reports cache health and implausible usage on `deps.bus` from now on, starting with `identity`'s think prefix. */
  useCacheHealth(deps: CacheHealthDeps, identity: string): void {
    this.cacheHealth = new CacheHealth({ ...deps, model: this.model, ttl: this.cacheTtl });
    this.given.bus = deps.bus;
    this.cacheHealth.checkPrefix(this.cachedParts('think', identity).prefix);
  }

  /** The cached parts of a request (tools, system with the configured lifetime) and the prefix they make. */
  private cachedParts(kind: 'think' | 'task' | 'task-with-tools', identity: string) {
    const tools = withCacheTtl(requestTools(this.given.tools?.definitions() ?? []), this.cacheTtl);
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
    this.given.memory = memory;
  }

  /** Answers the model's `schedule_*` calls from the runtime's schedules. */
  useSchedules(schedules: ModelSchedules): void {
    this.given.schedules = schedules;
  }

  /** Streams each think's replies to `stream` while someone watches (the request then asks for a stream). */
  useReplyStream(stream: ReplyStream): void {
    this.given.replies = stream;
  }

  /** Runs the tool loop (model-think.ts) until the model ends its turn or the iteration guard stops it. */
  think(input: ThinkInput, signal: AbortSignal): Promise<ThinkResult> {
    return runModelThink(this, input, signal, ({ input: { identity, contextTokens } }) => {
      // One snapshot per think: the list stays the same for all its calls, and is the same array while nothing changed.
      const { tools: toolDefs, system, prefix } = this.cachedParts('think', identity);
      this.cacheHealth?.checkPrefix(prefix);
      const parts = {
        prefix: system,
        toolDefs,
        tail: [] as MessageParam[],
        bound: contextTokens ?? DEFAULT_CONTEXT_TOKENS,
        cacheTtl: this.cacheTtl,
        // Measured as streamed (with `stream: true`, a few tokens more): the bound then holds whether or not it streams.
        body: (p: CallParams) => ({ ...this.body(p), stream: true }),
      };
      const provider: ThinkProvider<Message, CallParams> = {
        system,
        request: (shown) => boundedParams(shown, parts, this.calibration),
        sections: (request) => sectionTrace(parts, request),
        // Streamed or not, the message is the same (MessageStream assembles it).
        call: (params, what, partial, extra) => this.create(params, signal, what, partial, extra),
        body: (params) => this.body(params),
        read: (response) => ({
          usage: this.observeCache(prefix, tokenUsage(response.usage)),
          transcript: messageText(response.content),
          text: textOf(response.content),
          beforeTools: textBeforeTools(response.content),
        }),
        toolUses: (response) => response.content.flatMap((block) => (block.type === 'tool_use' ? [block] : [])),
        wantsTools: (response) => response.stop_reason === 'tool_use',
        append: (response, answers) => {
          const results = answers.map(toolResultBlock);
          // The assistant turn goes back verbatim (thinking blocks included), followed by one result per tool_use.
          parts.tail.push({ role: 'assistant', content: response.content }, { role: 'user', content: results });
          return messageText(results);
        },
        aborted: abortedError,
      };
      return provider;
    });
  }

  /** Updates the rolling summary with one model call, bounded like a think; its cost is returned for the ledger. */
  summarize(request: SummaryRequest, signal: AbortSignal): Promise<SummaryResult> {
    return runModelSummary(this, request, signal, {
      aborted: abortedError,
      send: async (params, what, empty) => {
        const response = await this.create(params, signal, what, empty);
        return { text: textOf(response.content), usage: tokenUsage(response.usage) };
      },
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
    return runModelTask(this, { input, signal, hooks }, abortedError, (task, own) =>
      anthropicTaskConversation(deps, task, own),
    );
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
}
