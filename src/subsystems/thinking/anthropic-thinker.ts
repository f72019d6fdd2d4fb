/** The Anthropic thinker: Claude through the Messages API with one tool per action, a bounded tool loop and prompt caching. */
import Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlock,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  ToolResultBlockParam,
  Usage,
} from '@anthropic-ai/sdk/resources/messages';
import { VigilError } from '../../errors.js';
import { MalformedResponseError, abortedError, callError } from './anthropic-errors.js';
import { stateMessage, taskMessage, taskSystem, thinkSystem } from './anthropic-prompt.js';
import { requestTools, toolUseToAction, type ToolContext } from './anthropic-tools.js';
import type { ExternalToolResult, ThinkTools } from './think-tools.js';
import { answerRecall, RECALL_TOOL_NAME, type MemoryRecall } from './recall-tool.js';
import { ModelPricingSchema, totalCostMicroUsd, type ModelPricing } from './pricing.js';
import type { Thinker } from './thinker.js';
import type { SwarmTaskInput, SwarmTaskOutput, ThinkAction, ThinkInput, ThinkResult, TokenUsage } from './thinker.schema.js';

/** Options of the Anthropic thinker. */
export interface AnthropicThinkerOptions {
  /** The API key (sent by the SDK as a bearer token). */
  apiKey: string;
  /** Another base URL for the Messages API (a proxy, or the fake server in tests); unset: the SDK default. */
  baseURL?: string;
  /** Model id for every call; also the `model` reported in results. */
  model: string;
  /** The model's price (`resolvePrice(model, overrides)`), which turns each call's usage into micro-dollars. */
  price: ModelPricing;
  /** Iteration guard: the most Messages calls one think may make. */
  maxToolIterations: number;
  /** Retries the SDK makes on 408/409/429/5xx/529 and timeouts, with backoff honouring retry-after (default 4). */
  maxRetries?: number;
  /** Timeout of one HTTP attempt in ms, the response body included (default 120000). */
  timeoutMs?: number;
  /** Output token cap of one call (default 4096), which also caps what one call can cost. */
  maxTokens?: number;
  /** A ready client (tests, custom fetch or middleware); when given, apiKey, baseURL, maxRetries and timeoutMs are unused. */
  client?: Anthropic;
}

const DEFAULT_MAX_RETRIES = 4;
const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_TOKENS = 4096;

/** A Messages API usage object as Vigil's token usage; absent cache counts are zero. */
function tokenUsage(usage: Usage | undefined): TokenUsage {
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheWriteTokens: usage?.cache_creation_input_tokens ?? 0,
    cacheReadTokens: usage?.cache_read_input_tokens ?? 0,
  };
}

function sumUsage(calls: readonly TokenUsage[]): TokenUsage {
  return calls.reduce(
    (sum, u) => ({
      inputTokens: sum.inputTokens + u.inputTokens,
      outputTokens: sum.outputTokens + u.outputTokens,
      cacheWriteTokens: sum.cacheWriteTokens + u.cacheWriteTokens,
      cacheReadTokens: sum.cacheReadTokens + u.cacheReadTokens,
    }),
    { inputTokens: 0, outputTokens: 0, cacheWriteTokens: 0, cacheReadTokens: 0 },
  );
}

function textOf(content: readonly ContentBlock[]): string {
  return content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n').trim();
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * `fetch` that reads the whole response body before resolving. The SDK arms its timeout around fetch only, which
 * resolves at the headers: a server that sent headers and then stalled would hang the think until the stuck-turn
 * guard (VIGIL_STUCK_TURN_S). Read inside, the body falls under the per-attempt timeout, and a body cut short fails
 * the attempt as a connection error, which the SDK retries. Right only for non-streaming calls, the only kind made.
 */
export async function bufferedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  const body = await response.arrayBuffer();
  const headers = new Headers(response.headers);
  // The body is already decoded and complete: the wire's encoding and length no longer describe it.
  headers.delete('content-encoding');
  headers.delete('content-length');
  return new Response(NULL_BODY_STATUSES.has(response.status) ? null : body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/** An MCP tool's result as a tool_result block: text, and images the API accepts as images. */
function externalResult(toolUseId: string, result: ExternalToolResult): ToolResultBlockParam {
  const content = result.content.map((part) =>
    part.type === 'text'
      ? { type: 'text' as const, text: part.text === '' ? '(empty)' : part.text }
      : {
          type: 'image' as const,
          source: { type: 'base64' as const, data: part.data, media_type: part.mimeType as 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' },
        },
  );
  return { type: 'tool_result', tool_use_id: toolUseId, content, ...(result.isError ? { is_error: true } : {}) };
}

/** Thinks with Claude. Money is charged per completed call: an abort or a failure still reports what was spent. */
export class AnthropicThinker implements Thinker {
  readonly kind = 'anthropic';
  readonly model: string;
  readonly price: ModelPricing;
  readonly maxToolIterations: number;
  readonly maxTokens: number;
  private readonly client: Anthropic;
  private tools: ThinkTools | undefined;
  private memory: MemoryRecall | undefined;

  constructor(options: AnthropicThinkerOptions) {
    const guard = options.maxToolIterations;
    if (!Number.isSafeInteger(guard) || guard < 1) {
      throw new VigilError('CONFIG_INVALID', `VIGIL_MAX_TOOL_ITERATIONS=${guard} is invalid: expected a positive integer.`, {
        data: { variable: 'VIGIL_MAX_TOOL_ITERATIONS', value: guard, allowed: 'a positive integer' },
      });
    }
    const price = ModelPricingSchema.safeParse(options.price);
    if (!price.success) {
      throw new VigilError('CONFIG_INVALID', `The price of ${options.model} is invalid: ${price.error.message}`, {
        data: { variable: 'VIGIL_PRICING_JSON', value: options.price, allowed: 'prices in USD per million tokens, 0 or more' },
      });
    }
    this.model = options.model;
    this.price = price.data;
    this.maxToolIterations = guard;
    this.maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
    this.client =
      options.client ??
      new Anthropic({
        apiKey: options.apiKey,
        baseURL: options.baseURL,
        maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
        timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        fetch: bufferedFetch,
      });
  }

  /** Offers the runtime's MCP tools to the model from the next think on. */
  useTools(tools: ThinkTools): void {
    this.tools = tools;
  }

  /** Answers the model's `recall` calls from the runtime's long-term memory. */
  useMemory(memory: MemoryRecall): void {
    this.memory = memory;
  }

  /** Runs the tool loop until the model ends its turn or the iteration guard stops it; aborts only between calls. */
  async think(input: ThinkInput, signal: AbortSignal): Promise<ThinkResult> {
    const what = `think for turn ${input.turnId}`;
    const calls: TokenUsage[] = [];
    const actions: ThinkAction[] = [];
    // A failed think applies nothing (it is tried again or its turns end), but what it spent counts. A preempted
    // one keeps the actions of the calls it completed: the work done before it yielded is not thrown away.
    const partial = () => this.result(signal.aborted ? [...actions] : [], calls);
    const ctx: ToolContext = {
      turnIds: [...new Set([...input.pendingMessages.map((m) => m.turnId), input.turnId])],
      goalIds: input.goals.map((g) => g.id),
    };
    const system = thinkSystem(input.identity);
    const tools = this.tools;
    // One snapshot per think: the list stays the same for all its calls, and is the same array while nothing changed.
    const toolDefs = requestTools(tools?.definitions() ?? []);
    // Calls a crash left unknown are told to the next think of their turn, as notices of the state message.
    const notices = tools?.notices(ctx.turnIds) ?? [];
    const shown = notices.length === 0 ? input : { ...input, notices: [...input.notices, ...notices.map((n) => n.line)] };
    const messages: MessageParam[] = [{ role: 'user', content: stateMessage(shown) }];
    let lastText = '';
    for (let call = 1; call <= this.maxToolIterations; call++) {
      this.checkAborted(signal, what, partial);
      const params = { system, tools: [...toolDefs], messages };
      const response = await this.create(params, signal, `${what} (call ${call})`, partial);
      calls.push(tokenUsage(response.usage));
      lastText = textOf(response.content);
      const results: ToolResultBlockParam[] = [];
      for (const block of response.content) {
        if (block.type !== 'tool_use') continue;
        if (tools?.owns(block.name) === true) {
          results.push(externalResult(block.id, await tools.call({ name: block.name, args: block.input, turnId: input.turnId }, signal)));
          continue;
        }
        if (block.name === RECALL_TOOL_NAME) {
          const answer = await answerRecall(block.input, this.memory);
          results.push({ type: 'tool_result', tool_use_id: block.id, content: answer.text, ...(answer.isError ? { is_error: true } : {}) });
          continue;
        }
        const outcome = toolUseToAction(block.name, block.input, ctx);
        if (outcome.ok) actions.push(outcome.action);
        results.push(
          outcome.ok
            ? { type: 'tool_result', tool_use_id: block.id, content: 'ok' }
            : { type: 'tool_result', tool_use_id: block.id, content: outcome.error, is_error: true },
        );
      }
      this.checkAborted(signal, what, partial);
      if (response.stop_reason !== 'tool_use' || results.length === 0) break;
      // The assistant turn goes back verbatim (thinking blocks included), followed by one result per tool_use.
      messages.push({ role: 'assistant', content: response.content }, { role: 'user', content: results });
    }
    tools?.acknowledge(notices.map((n) => n.callId));
    return this.result([...actions, ...this.unsentReply(input, actions, lastText)], calls);
  }

  /** One call without tools: the identity and a sub-agent instruction as the cached prefix, the task as the message. */
  async runTask(input: SwarmTaskInput, signal: AbortSignal): Promise<SwarmTaskOutput> {
    const what = `task ${input.taskId}`;
    const empty = () => ({ text: '', ...this.usageAndCost([]), model: this.model });
    this.checkAborted(signal, what, empty);
    const messages: MessageParam[] = [{ role: 'user', content: taskMessage(input.prompt) }];
    const response = await this.create({ system: taskSystem(input.identity), messages }, signal, what, empty);
    const done = [tokenUsage(response.usage)];
    this.checkAborted(signal, what, () => ({ text: '', ...this.usageAndCost(done), model: this.model }));
    return { text: textOf(response.content), ...this.usageAndCost(done), model: this.model };
  }

  private async create(
    params: Omit<MessageCreateParamsNonStreaming, 'model' | 'max_tokens'>,
    signal: AbortSignal,
    what: string,
    partial: () => unknown,
  ): Promise<Message> {
    try {
      const body = { model: this.model, max_tokens: this.maxTokens, ...params };
      const response = await this.client.messages.create(body, { signal });
      if (!Array.isArray(response?.content)) throw new MalformedResponseError('the response has no content array');
      return response;
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

  private result(actions: ThinkAction[], calls: readonly TokenUsage[]): ThinkResult {
    return { model: this.model, actions, ...this.usageAndCost(calls) };
  }

  /**
   * A user message must not go unanswered because the model wrote its answer as text instead of calling reply: the
   * final text answers one message still unanswered (this turn's own, else the newest). Others stay open for the
   * next think, which sees them again; they are never marked answered by a reply meant for another.
   */
  private unsentReply(input: ThinkInput, actions: readonly ThinkAction[], text: string): ThinkAction[] {
    if (text === '') return [];
    const answered = new Set(actions.flatMap((a) => (a.type === 'reply' ? [a.turnId] : [])));
    const waiting = input.pendingMessages.filter((m) => !answered.has(m.turnId));
    if (waiting.length === 0 || answered.size > 0) return [];
    const target = waiting.find((m) => m.turnId === input.turnId) ?? waiting[waiting.length - 1]!;
    return [{ type: 'reply', turnId: target.turnId, text }];
  }
}
