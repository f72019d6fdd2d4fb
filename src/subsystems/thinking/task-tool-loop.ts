/**
 * A sub-agent task's tool loop, whatever the provider: the task's own subset of the MCP tools (named in its message;
 * the request carries the think's whole tool list, so its prefix is the think's cached one), each call through the
 * durable caller under the task's id, each model call's cost handed to the caller as it lands, and a stop at the end
 * of the model's turn, at the iteration guard or at the task's money cap. The provider builds requests and reads replies.
 */
import { costMicroUsd, type ModelPricing } from './pricing.js';
import { taskOfferableTools, type ThinkTools } from './think-tools.js';
import type { ToolAnswer, ToolUse } from './think-tool-loop.js';
import type { TaskHooks } from './thinker.js';
import type { SwarmTaskInput, SwarmTaskOutput, TokenUsage } from './thinker.schema.js';
import { sumUsage } from './token-usage.js';

/** One task's conversation with the model, as its provider keeps it. */
export interface TaskConversation<Reply> {
  /** One model call with the conversation so far; a failure rejects carrying `partial()` (what was spent) in its data. */
  call(signal: AbortSignal, what: string, partial: () => unknown): Promise<Reply>;
  /** The reply's usage, once its cache use has been judged. */
  usage(reply: Reply): TokenUsage;
  /** The reply's text ('' for none). */
  text(reply: Reply): string;
  /** The tool calls of a reply, in order. */
  toolUses(reply: Reply): readonly ToolUse[];
  /** The reply stopped to have its tool calls answered. */
  wantsTools(reply: Reply): boolean;
  /** The reply and the answers to its tool calls go into the next call. */
  append(reply: Reply, answers: readonly ToolAnswer[]): void;
}

/** The model side of the loop, as a thinker provides it. */
export interface TaskModel<Reply> {
  readonly model: string;
  readonly price: ModelPricing;
  /** The most model calls one task may make (VIGIL_MAX_TOOL_ITERATIONS). */
  readonly maxIterations: number;
  /** Throws THINK_ABORTED carrying `partial()` once `signal` has aborted. */
  checkAborted(signal: AbortSignal, what: string, partial: () => unknown): void;
  /**
   * The task's conversation: under the think's cached prefix (its tools and system, so a task reads the cache the
   * thinks keep warm), the sub-agent instruction after it, and the task's message naming its `own` tools; with none,
   * it may call no tool.
   */
  start(input: SwarmTaskInput, own: readonly string[]): TaskConversation<Reply>;
}

const usd = (microUsd: number): string => `$${(microUsd / 1_000_000).toFixed(4)}`;

/**
 * Runs one task. Without tools it is one call, as before tasks could act. With tools, the model's tool calls are
 * run through `tools` (a name outside the task's list is an error result, never a call) until it ends its turn. The
 * cost cap is checked after each model call: once reached, the task ends with the text it has and says so.
 */
export async function runTaskLoop<Reply>(
  model: TaskModel<Reply>,
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
  const conversation = model.start(input, own);
  let text = '';
  let ended = false;
  let capped = false;
  for (let call = 1; call <= model.maxIterations; call++) {
    model.checkAborted(signal, what, partial);
    const reply = await conversation.call(signal, `${what} (call ${call})`, partial);
    const usage = conversation.usage(reply);
    const cost = costMicroUsd(usage, model.price);
    calls.push(usage);
    spentMicroUsd += cost;
    // Recorded before anything else happens: a crash from here on loses no money.
    await hooks?.onModelCall({ model: model.model, usage, costMicroUsd: cost });
    text = conversation.text(reply) || text;
    const uses = conversation.toolUses(reply);
    if (!conversation.wantsTools(reply) || uses.length === 0) {
      ended = true;
      break;
    }
    if (input.maxCostMicroUsd !== undefined && spent() >= input.maxCostMicroUsd) {
      capped = true;
      break;
    }
    const answers: ToolAnswer[] = [];
    for (const use of uses) {
      if (use.invalid !== undefined) {
        answers.push({ kind: 'text', toolUseId: use.id, text: use.invalid, isError: true });
        continue;
      }
      if (!allowed.has(use.name) || tools === undefined) {
        const named = [...allowed].sort().join(', ') || '(none)';
        answers.push({
          kind: 'text',
          toolUseId: use.id,
          text: `${use.name} is not one of this task's tools (${named}): it was not called.`,
          isError: true,
        });
        continue;
      }
      const request = { name: use.name, args: use.input, turnId: input.turnId ?? input.taskId, taskId: input.taskId };
      answers.push({ kind: 'external', toolUseId: use.id, result: await tools.call(request, signal) });
    }
    model.checkAborted(signal, what, partial);
    conversation.append(reply, answers);
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
