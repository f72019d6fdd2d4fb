/**
 * A sub-agent task's tool loop with Claude: the task's own subset of the MCP tools (named in its message; the request
 * carries the think's whole tool list, so its prefix is the think's cached one), each call through the durable
 * caller under the task's id, each model call's cost handed to the caller as it lands, and a stop at the end of the
 * model's turn, at the iteration guard or at the task's money cap.
 */
import type {
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { externalResult, sumUsage, textOf, tokenUsage } from './anthropic-content.js';
import { taskMessage } from './anthropic-prompt.js';
import { costMicroUsd, type ModelPricing } from './pricing.js';
import { taskOfferableTools, type ThinkTools } from './think-tools.js';
import type { TaskHooks } from './thinker.js';
import type { SwarmTaskInput, SwarmTaskOutput, TokenUsage } from './thinker.schema.js';

/** The model side of the loop, as the Anthropic thinker provides it. */
export interface TaskModel {
  readonly model: string;
  readonly price: ModelPricing;
  /** The most model calls one task may make (VIGIL_MAX_TOOL_ITERATIONS). */
  readonly maxIterations: number;
  /** One Messages call; a failure rejects carrying `partial()` (what was spent) in its data. */
  create(
    params: Omit<MessageCreateParamsNonStreaming, 'model' | 'max_tokens'>,
    signal: AbortSignal,
    what: string,
    partial: () => unknown,
  ): Promise<Message>;
  /** Throws THINK_ABORTED carrying `partial()` once `signal` has aborted. */
  checkAborted(signal: AbortSignal, what: string, partial: () => unknown): void;
  /**
   * The request's cached prefix: the think's own tools and system blocks (so a task reads the cache the thinks keep
   * warm; alone its prefix is under every model's minimum), the sub-agent instruction after them; and `observe`,
   * which judges each call's cache use and returns its usage.
   */
  cachedParts(withTools: boolean): {
    tools: readonly Tool[];
    system: readonly TextBlockParam[];
    observe: (usage: TokenUsage) => TokenUsage;
  };
}

const usd = (microUsd: number): string => `$${(microUsd / 1_000_000).toFixed(4)}`;

/**
 * Runs one task. Without tools it is one call, as before tasks could act. With tools, the model's tool_use blocks are
 * run through `tools` (a name outside the task's list is an error result, never a call) until it ends its turn. The
 * cost cap is checked after each model call: once reached, the task ends with the text it has and says so.
 */
export async function runTaskLoop(
  model: TaskModel,
  tools: ThinkTools | undefined,
  input: SwarmTaskInput,
  signal: AbortSignal,
  hooks?: TaskHooks,
): Promise<SwarmTaskOutput> {
  const what = `task ${input.taskId}`;
  const calls: TokenUsage[] = [];
  // Each call is charged on its own as it lands (rounded up per call), so the task's cost is the sum of those charges.
  let spentMicroUsd = 0;
  const spent = () => spentMicroUsd;
  const output = (text: string): SwarmTaskOutput => ({
    text,
    usage: sumUsage(calls),
    costMicroUsd: spent(),
    model: model.model,
  });
  const partial = () => output('');
  const asked = new Set(input.tools ?? []);
  // Its own tools are named in its message; the request lists the think's, so the prefix is the think's own.
  const own =
    tools === undefined
      ? []
      : taskOfferableTools(tools.definitions())
          .filter((t) => asked.has(t.name))
          .map((t) => t.name);
  // Only the tools named in its message are callable (one that now needs approval, or is gone, is not among them).
  const allowed = new Set(own);
  const { tools: toolDefs, system, observe } = model.cachedParts(own.length > 0);
  const messages: MessageParam[] = [{ role: 'user', content: taskMessage(input.prompt, own) }];
  let text = '';
  let ended = false;
  let capped = false;
  for (let call = 1; call <= model.maxIterations; call++) {
    model.checkAborted(signal, what, partial);
    // No tools of its own: it may call none (the listed ones are the think's, sent for the shared cache).
    const params = {
      system: [...system],
      tools: [...toolDefs],
      ...(own.length === 0 ? { tool_choice: { type: 'none' as const } } : {}),
      messages,
    };
    const response = await model.create(params, signal, `${what} (call ${call})`, partial);
    const usage = observe(tokenUsage(response.usage));
    const cost = costMicroUsd(usage, model.price);
    calls.push(usage);
    spentMicroUsd += cost;
    // Recorded before anything else happens: a crash from here on loses no money.
    await hooks?.onModelCall({ model: model.model, usage, costMicroUsd: cost });
    text = textOf(response.content) || text;
    const uses = response.content.filter((block) => block.type === 'tool_use');
    if (response.stop_reason !== 'tool_use' || uses.length === 0) {
      ended = true;
      break;
    }
    if (input.maxCostMicroUsd !== undefined && spent() >= input.maxCostMicroUsd) {
      capped = true;
      break;
    }
    const results: ToolResultBlockParam[] = [];
    for (const block of uses) {
      if (!allowed.has(block.name) || tools === undefined) {
        const named = [...allowed].sort().join(', ') || '(none)';
        results.push({
          type: 'tool_result',
          tool_use_id: block.id,
          is_error: true,
          content: `${block.name} is not one of this task's tools (${named}): it was not called.`,
        });
        continue;
      }
      const request = {
        name: block.name,
        args: block.input,
        turnId: input.turnId ?? input.taskId,
        taskId: input.taskId,
      };
      results.push(externalResult(block.id, await tools.call(request, signal)));
    }
    model.checkAborted(signal, what, partial);
    // The assistant turn goes back verbatim, followed by one result per tool_use.
    messages.push({ role: 'assistant', content: response.content }, { role: 'user', content: results });
  }
  if (capped) {
    const note = `[The task stopped at its cost cap of ${usd(input.maxCostMicroUsd!)} after spending ${usd(spent())} in ${calls.length} model calls; this is what it had.]`;
    return output(text === '' ? note : `${text}\n\n${note}`);
  }
  if (!ended) {
    const note = `[The task stopped after ${calls.length} model calls (VIGIL_MAX_TOOL_ITERATIONS) without finishing; this is what it had.]`;
    return output(text === '' ? note : `${text}\n\n${note}`);
  }
  return output(text);
}
