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
import { streamingFetch } from './buffered-fetch.js';
import type { CacheHealthDeps } from './cache-health-monitor.js';
import { attemptCountingFetch, type CallTraceRecorder } from './call-trace-recorder.js';
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
import type { CallListener } from './reply-deltas.js';
import { openAiToolSet } from './openai-tools.js';
import { messageText } from './prompt-sections.js';
import type { ModelPricing } from './pricing.js';
import { checkedThinkerSettings, type ModelThinkerOptions } from './thinker-settings.js';
import type { MemoryRecall } from './recall-tool.js';
import type { ModelSchedules } from './schedule-tools.js';
import type { SummaryRequest, SummaryResult } from './summary-request.js';
import type { ThinkTools } from './think-tools.js';
import {
  runModelSummary,
  runModelTask,
  runModelThink,
  type ThinkerGiven,
  type ThinkerParts,
  type ThinkProvider,
} from './model-think.js';
import type { ReplyStream, TaskHooks, Thinker } from './thinker.js';
import type { SwarmTaskInput, SwarmTaskOutput, ThinkInput, ThinkResult } from './thinker.schema.js';
import { TokenCalibration } from './token-calibration.js';

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
export class OpenAiThinker implements Thinker, ThinkerParts {
  readonly kind = 'openai';
  readonly model: string;
  readonly price: ModelPricing;
  readonly maxToolIterations: number;
  readonly maxTokens: number;
  readonly outputCapField: OutputCapField;
  /** Calibrates the prompt bound's token estimate against the usage the API reports. */
  readonly calibration = new TokenCalibration();
  private readonly client: OpenAI;
  readonly now: () => number;
  /** What the runtime gave it: tools, memory, schedules, the reply stream, the bus (model-think.ts). */
  readonly given: ThinkerGiven = {};

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
    this.given.tools = tools;
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

  /**
   * Reports implausible usage on `deps.bus`. Prompt-cache health is not judged: Chat Completions reports cache reads
   * (`cached_tokens`, priced as such) but never writes, and many compatible servers report neither, so a miss cannot
   * be told from a server that does not say.
   */
  useCacheHealth(deps: CacheHealthDeps): void {
    this.given.bus = deps.bus;
  }

  /** Runs the tool loop (model-think.ts) until the model ends its turn or the iteration guard stops it. */
  think(input: ThinkInput, signal: AbortSignal): Promise<ThinkResult> {
    return runModelThink(this, input, signal, ({ tools, input: { identity, contextTokens } }) => {
      const toolSet = openAiToolSet(tools?.definitions() ?? []);
      const system = systemParts(identity, 'think');
      const tail: ChatCompletionMessageParam[] = [];
      const parts: ChatRequestParts = {
        system,
        tools: toolSet.tools,
        tail,
        bound: contextTokens ?? DEFAULT_CONTEXT_TOKENS,
        // Measured as streamed (with what a streamed request adds): the bound then holds whether or not it streams.
        body: (p) => ({ ...this.body(p), stream: true, stream_options: { include_usage: true } }),
      };
      const provider: ThinkProvider<ChatReply, ChatParams> = {
        system,
        toolName: toolSet.toolName,
        request: (shown) => boundedChatParams(shown, parts, this.calibration),
        sections: (request) => chatSectionTrace(parts, request),
        // Streamed only while someone watches: a whole reply is the simpler request, which every server serves.
        call: (params, what, partial, extra) => this.create(params, signal, what, partial, extra),
        body: (params) => this.body(params),
        read: (reply) => ({
          usage: reply.usage,
          transcript: replyTranscript(reply, toolSet.toolName),
          text: replyText(reply),
          beforeTools: replyText(reply),
        }),
        toolUses: (reply) => replyToolUses(reply, toolSet.toolName),
        wantsTools: (reply) => reply.stop_reason === 'tool_calls',
        append: (reply, answers) => {
          const results = answers.map(toolMessage);
          // The assistant turn goes back with its tool calls, then one tool message per call (the API requires each).
          tail.push(assistantTurn(reply), ...results);
          return messageText(
            results.map((m) => ({
              type: 'tool_result',
              tool_use_id: m.tool_call_id,
              content: typeof m.content === 'string' ? m.content : '',
            })),
          );
        },
        aborted: openaiAbortedError,
      };
      return provider;
    });
  }

  /** Updates the rolling summary with one model call, bounded like a think; its cost is returned for the ledger. */
  summarize(request: SummaryRequest, signal: AbortSignal): Promise<SummaryResult> {
    return runModelSummary(this, request, signal, {
      aborted: openaiAbortedError,
      send: async (params, what, empty) => {
        const reply = await this.create({ messages: chatMessagesOf(params) }, signal, what, empty, {
          maxTokens: params.max_tokens,
        });
        return { text: replyText(reply), usage: reply.usage };
      },
    });
  }

  /** A sub-agent task: its tool loop (task-tool-loop.ts) with the think's tools, the sub-agent instruction, only its own tools callable. */
  runTask(input: SwarmTaskInput, signal: AbortSignal, hooks?: TaskHooks): Promise<SwarmTaskOutput> {
    const deps: ChatTaskDeps = {
      create: (params, callSignal, what, partial) => this.create(params, callSignal, what, partial),
      toolSet: openAiToolSet(this.given.tools?.definitions() ?? []),
      observe: (usage) => usage,
    };
    return runModelTask(this, { input, signal, hooks }, openaiAbortedError, (task, own) =>
      chatTaskConversation(deps, task, own),
    );
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
}
