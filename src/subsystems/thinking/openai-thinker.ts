/**
 * The OpenAI-compatible thinker: any Chat Completions endpoint (OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio,
 * OpenRouter) through the official `openai` SDK, with the same think session, tool loop, prompt bound, pricing and
 * error classification as the Anthropic thinker; tools as function calls.
 */
import OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { VigilError } from '../../errors.js';
import { summarizeWithClaude } from './anthropic-summary.js';
import { streamingFetch } from './buffered-fetch.js';
import type { CacheHealthDeps } from './cache-health-monitor.js';
import { attemptCountingFetch, CallTraceRecorder } from './call-trace-recorder.js';
import { DEFAULT_CONTEXT_TOKENS } from './context-defaults.js';
import { chatReply, replyText, replyToolUses, replyTranscript, toolMessage, type ChatReply } from './openai-content.js';
import { openaiAbortedError, openaiCallError } from './openai-errors.js';
import {
  boundedChatParams,
  chatMessagesOf,
  chatSectionTrace,
  systemParts,
  type ChatParams,
  type ChatRequestParts,
} from './openai-request.js';
import { assistantTurn, chatTaskConversation, type ChatTaskDeps } from './openai-task.js';
import { streamedCompletion } from './openai-stream.js';
import { ThinkDeltas, type CallListener } from './reply-deltas.js';
import { openAiToolSet } from './openai-tools.js';
import type { ToolContext } from './own-tools.js';
import { messageText } from './prompt-sections.js';
import { totalCostMicroUsd, type ModelPricing } from './pricing.js';
import { checkedThinkerSettings, type ModelThinkerOptions } from './thinker-settings.js';
import type { MemoryRecall } from './recall-tool.js';
import type { ModelSchedules } from './schedule-tools.js';
import type { SummaryRequest, SummaryResult } from './summary-request.js';
import { runTaskLoop, type TaskModel } from './task-tool-loop.js';
import { ThinkSession } from './think-session.js';
import { runThinkLoop, toolDispatcher, type ThinkLoopModel } from './think-tool-loop.js';
import { taskOfferableTools, type ThinkTools } from './think-tools.js';
import type { ReplyStream, TaskHooks, Thinker } from './thinker.js';
import type { SwarmTaskInput, SwarmTaskOutput, ThinkInput, ThinkResult, TokenUsage } from './thinker.schema.js';
import { TokenCalibration } from './token-calibration.js';
import { estimateTokens } from './token-estimate.js';
import { sumUsage } from './token-usage.js';

/** Which field caps a call's output: OpenAI's current one, or the older one most compatible servers read. */
export type OutputCapField = 'max_completion_tokens' | 'max_tokens';

/** Options of the OpenAI-compatible thinker. */
export interface OpenAiThinkerOptions extends ModelThinkerOptions {
  /** The API key, sent as a bearer token; local servers that need none get a placeholder. */
  apiKey?: string;
  /** The endpoint's base URL (`http://localhost:11434/v1` for Ollama); unset: OpenAI's. */
  baseURL?: string;
  /** The field the cap is sent in; default `max_completion_tokens` for OpenAI's own API, `max_tokens` for any other. */
  outputCapField?: OutputCapField;
  /** A ready client (tests, custom fetch); when given, apiKey, baseURL, maxRetries and timeoutMs are unused. */
  client?: OpenAI;
}

const DEFAULT_MAX_RETRIES = 4;
const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_TOKENS = 4096;
/** What the SDK is given as a key for a local server that asks for none (the SDK refuses to start without one). */
export const NO_KEY_PLACEHOLDER = 'no-key';

/** OpenAI's own API takes `max_completion_tokens` (its reasoning models refuse `max_tokens`); other servers read `max_tokens`. */
export function outputCapFieldFor(baseURL: string | undefined): OutputCapField {
  if (baseURL === undefined) return 'max_completion_tokens';
  return new URL(baseURL).hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens';
}

/** Thinks with a Chat Completions model. Money is charged per completed call: an abort or a failure still reports what was spent. */
export class OpenAiThinker implements Thinker {
  readonly kind = 'openai';
  readonly model: string;
  readonly price: ModelPricing;
  readonly maxToolIterations: number;
  readonly maxTokens: number;
  readonly outputCapField: OutputCapField;
  /** Calibrates the prompt bound's token estimate against the usage the API reports. */
  readonly calibration = new TokenCalibration();
  private readonly client: OpenAI;
  private readonly now: () => number;
  private tools: ThinkTools | undefined;
  private memory: MemoryRecall | undefined;
  private schedules: ModelSchedules | undefined;
  private bus: CacheHealthDeps['bus'] | undefined;
  private replies: ReplyStream | undefined;

  constructor(options: OpenAiThinkerOptions) {
    const { maxToolIterations: guard, price } = checkedThinkerSettings(options);
    this.model = options.model;
    this.price = price;
    this.maxToolIterations = guard;
    this.maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
    this.outputCapField = options.outputCapField ?? outputCapFieldFor(options.baseURL);
    this.client =
      options.client ??
      new OpenAI({
        apiKey: options.apiKey ?? NO_KEY_PLACEHOLDER,
        // Explicit, so the SDK never reads OPENAI_BASE_URL behind the configuration's back.
        baseURL: options.baseURL ?? 'https://api.openai.com/v1',
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

  /**
   * Reports implausible usage on `deps.bus`. Prompt-cache health is not judged: Chat Completions reports cache reads
   * (`cached_tokens`, priced as such) but never writes, and many compatible servers report neither, so a miss cannot
   * be told from a server that does not say.
   */
  useCacheHealth(deps: CacheHealthDeps): void {
    this.bus = deps.bus;
  }

  /** Runs the tool loop (think-tool-loop.ts) until the model ends its turn or the iteration guard stops it. */
  async think(input: ThinkInput, signal: AbortSignal): Promise<ThinkResult> {
    const what = `think for turn ${input.turnId}`;
    const recorder = new CallTraceRecorder(this.model, this.price, this.now);
    const tools = this.tools === undefined ? undefined : recorder.traced(this.tools);
    const toolSet = openAiToolSet(tools?.definitions() ?? []);
    const ctx: ToolContext = {
      turnIds: [...new Set([...input.pendingMessages.map((m) => m.turnId), input.turnId])],
      goalIds: input.goals.map((g) => g.id),
      taskTools: taskOfferableTools(tools?.definitions() ?? []).map((t) => t.name),
    };
    const system = systemParts(input.identity, 'think');
    const session = new ThinkSession(this, recorder, system);
    const deltas = new ThinkDeltas(this.replies, ctx.turnIds, toolSet.toolName);
    const partial = () => session.partial(signal.aborted);
    // Calls a crash left unknown are told to the next think of their turn, as notices of the state message.
    const notices = tools?.notices(ctx.turnIds) ?? [];
    const shown =
      notices.length === 0 ? input : { ...input, notices: [...input.notices, ...notices.map((n) => n.line)] };
    const tail: ChatCompletionMessageParam[] = [];
    const parts: ChatRequestParts = {
      system,
      tools: toolSet.tools,
      tail,
      bound: input.contextTokens ?? DEFAULT_CONTEXT_TOKENS,
      // Measured as streamed (with what a streamed request adds): the bound then holds whether or not it streams.
      body: (p) => ({ ...this.body(p), stream: true, stream_options: { include_usage: true } }),
    };
    this.calibration.beginThink(this.now());
    const model: ThinkLoopModel<ChatReply> = {
      maxIterations: this.maxToolIterations,
      call: async (n) => {
        const request = this.requestOrFull(shown, parts, n);
        if (request === null) return null;
        if (n === 1)
          session.promptBuilt(
            chatSectionTrace(parts, request),
            request.built.conversation.join('') + request.built.state,
          );
        // Streamed only while someone watches (reply-deltas.ts): a whole reply is the simpler request, which every
        // server serves.
        const plainTurn = session.plainTextTurn(input);
        const streaming = deltas.nextCall(plainTurn);
        const reply = await this.create(request.params, signal, `${what} (call ${n})`, partial, {
          recorder,
          streaming,
        });
        this.observe(request.params, reply.usage);
        session.replied(reply.usage, replyTranscript(reply, toolSet.toolName), replyText(reply));
        // Before the call's tool calls are applied: its text answers first, whatever they do (reply-deltas.ts).
        session.answeredInText(plainTurn, replyText(reply));
        return reply;
      },
      toolUses: (reply) => replyToolUses(reply, toolSet.toolName),
      wantsTools: (reply) => reply.stop_reason === 'tool_calls',
      append: (reply, answers) => {
        const results = answers.map(toolMessage);
        // The assistant turn goes back with its tool calls, then one tool message per call (the API requires each).
        tail.push(assistantTurn(reply), ...results);
        session.toolResultsSent(
          messageText(
            results.map((m) => ({
              type: 'tool_result',
              tool_use_id: m.tool_call_id,
              content: typeof m.content === 'string' ? m.content : '',
            })),
          ),
        );
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

  /** Call `n`'s bounded request; null when the loop's additions leave no room (the first call's CONTEXT_TOO_SMALL fails the think). */
  private requestOrFull(input: ThinkInput, parts: ChatRequestParts, n: number) {
    try {
      return boundedChatParams(input, parts, this.calibration);
    } catch (err) {
      if (n > 1 && err instanceof VigilError && err.code === 'CONTEXT_TOO_SMALL') return null;
      throw err;
    }
  }

  /** Calibrates the bound's estimate on what the API counted for the prompt (cached tokens included). */
  private observe(params: ChatParams, usage: TokenUsage): TokenUsage {
    const estimated = estimateTokens(JSON.stringify(this.body(params)));
    const reported = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    if (this.calibration.observe(estimated, reported) === 'implausible')
      this.bus?.emit('think.usage_implausible', { reported, estimated });
    return usage;
  }

  /** Updates the rolling summary with one model call, bounded like a think; its cost is returned for the ledger. */
  async summarize(request: SummaryRequest, signal: AbortSignal): Promise<SummaryResult> {
    const what = 'conversation summary update';
    const empty = () => ({ text: '', ...this.usageAndCost([]), model: this.model });
    this.checkAborted(signal, what, empty);
    return summarizeWithClaude(request, {
      counter: this.calibration,
      send: async (params) => {
        const reply = await this.create({ messages: chatMessagesOf(params) }, signal, what, empty, {
          maxTokens: params.max_tokens,
        });
        return { text: replyText(reply), ...this.usageAndCost([reply.usage]), model: this.model };
      },
      maxTokens: this.maxTokens,
      model: this.model,
    });
  }

  /** A sub-agent task: its tool loop (task-tool-loop.ts) with the think's tools, the sub-agent instruction, only its own tools callable. */
  runTask(input: SwarmTaskInput, signal: AbortSignal, hooks?: TaskHooks): Promise<SwarmTaskOutput> {
    const deps: ChatTaskDeps = {
      create: (params, callSignal, what, partial) => this.create(params, callSignal, what, partial),
      toolSet: openAiToolSet(this.tools?.definitions() ?? []),
      observe: (usage) => usage,
    };
    const model: TaskModel<ChatReply> = {
      model: this.model,
      price: this.price,
      maxIterations: this.maxToolIterations,
      checkAborted: (callSignal, what, partial) => this.checkAborted(callSignal, what, partial),
      start: (task, own) => chatTaskConversation(deps, task, own),
    };
    return runTaskLoop(model, this.tools, input, signal, hooks);
  }

  /** The whole request body as the SDK sends it, for the bound's measure. */
  private body(params: ChatParams, maxTokens = this.maxTokens): ChatCompletionCreateParamsNonStreaming {
    return { model: this.model, [this.outputCapField]: maxTokens, ...params };
  }

  /** One call: whole, or streamed to `extra.streaming`; recorded in `extra.recorder`'s trace when given. */
  private async create(
    params: ChatParams,
    signal: AbortSignal,
    what: string,
    partial: () => unknown,
    extra: { recorder?: CallTraceRecorder; maxTokens?: number; streaming?: CallListener | undefined } = {},
  ): Promise<ChatReply> {
    const { recorder, streaming } = extra;
    const body = this.body(params, extra.maxTokens);
    const send = async () =>
      streaming === undefined
        ? chatReply(await this.client.chat.completions.create(body, { signal }))
        : streamedCompletion(this.client, body, signal, streaming);
    try {
      return recorder === undefined ? await send() : await recorder.modelCall(send, (reply) => reply.usage);
    } catch (err) {
      throw openaiCallError(err, what, signal, partial());
    }
  }

  private checkAborted(signal: AbortSignal, what: string, partial: () => unknown): void {
    if (signal.aborted) throw openaiAbortedError(what, partial(), signal.reason);
  }

  private usageAndCost(calls: readonly TokenUsage[]): { usage: TokenUsage; costMicroUsd: number } {
    return { usage: sumUsage(calls), costMicroUsd: totalCostMicroUsd(calls, this.price) };
  }
}
