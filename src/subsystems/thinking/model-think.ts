/**
 * The part of a think that is not the provider's, shared by the thinkers that call a model (Anthropic's Messages API,
 * Chat Completions): the tools traced by the think's recorder, the tool context, the session, the reply deltas, the
 * notices a crash left, each call's request within the context bound (a full context ends the think after its first
 * call), the calibration of the bound's estimate, and the tool loop with its dispatch; and around a summary update and
 * a sub-agent task, what is not the provider's either (the abort check, the cost, the task loop's settings). The
 * provider builds the request, makes the call and reads the reply (`ThinkProvider`).
 */
import { VigilError } from '../../errors.js';
import type { PromptSectionTrace } from '../../protocol/think-trace.schema.js';
import type { FittedRequest } from './bounded-prompt.js';
import type { CacheHealthDeps } from './cache-health-monitor.js';
import { CallTraceRecorder } from './call-trace-recorder.js';
import type { ToolContext } from './own-tools.js';
import type { ModelPricing } from './pricing.js';
import type { MemoryRecall } from './recall-tool.js';
import { ThinkDeltas, type CallListener } from './reply-deltas.js';
import type { ModelSchedules } from './schedule-tools.js';
import { ThinkSession } from './think-session.js';
import { runThinkLoop, toolDispatcher, type ToolAnswer, type ToolUse } from './think-tool-loop.js';
import { taskOfferableTools, type ThinkTools } from './think-tools.js';
import { summarizeWithClaude, type SummaryCallDeps } from './anthropic-summary.js';
import { totalCostMicroUsd } from './pricing.js';
import type { SummaryRequest, SummaryResult } from './summary-request.js';
import { runTaskLoop, type TaskModel } from './task-tool-loop.js';
import type { ReplyStream, TaskHooks } from './thinker.js';
import type { SwarmTaskInput, SwarmTaskOutput, ThinkInput, ThinkResult, TokenUsage } from './thinker.schema.js';
import { sumUsage } from './token-usage.js';
import type { TokenCalibration } from './token-calibration.js';
import { estimateTokens } from './token-estimate.js';

/** What the runtime gives a model thinker after it is made; a think reads it as it stands (the bus at each call). */
export interface ThinkerGiven {
  tools?: ThinkTools;
  memory?: MemoryRecall;
  schedules?: ModelSchedules;
  replies?: ReplyStream;
  /** Where implausible usage is reported. */
  bus?: CacheHealthDeps['bus'];
}

/** What a think reads of its thinker: the model and its price, the guard, the calibration, the clock, what it was given. */
export interface ThinkerParts {
  readonly model: string;
  readonly price: ModelPricing;
  readonly maxToolIterations: number;
  readonly calibration: TokenCalibration;
  readonly now: () => number;
  readonly given: ThinkerGiven;
}

/** What one reply of the model counts and says. */
export interface ReadReply {
  usage: TokenUsage;
  /** Its text for the think's transcript (tool calls included). */
  transcript: string;
  /** Its own text (the answer when it wrote one instead of calling reply). */
  text: string;
  /** Its text before its first tool call (what answers first, whatever the tools do). */
  beforeTools: string;
}

/** The provider's side of one think. */
export interface ThinkProvider<Reply, Params> {
  /** The system parts, as the session traces them. */
  readonly system: readonly { text: string }[];
  /** A wire tool name as Vigil names the tool, for the reply deltas (default: the same). */
  readonly toolName?: (wire: string) => string;
  /** The next call's request within the context bound (VigilError CONTEXT_TOO_SMALL when it does not fit). */
  request(input: ThinkInput): FittedRequest<Params>;
  /** The first request's sections, for the think's trace. */
  sections(request: FittedRequest<Params>): PromptSectionTrace[];
  /** One call, recorded in `recorder`'s trace; streamed to `streaming` while someone watches. */
  call(
    params: Params,
    what: string,
    partial: () => unknown,
    extra: { recorder: CallTraceRecorder; streaming: CallListener | undefined },
  ): Promise<Reply>;
  /** The whole request body as it is sent, for the calibration's estimate. */
  body(params: Params): unknown;
  read(reply: Reply): ReadReply;
  toolUses(reply: Reply): readonly ToolUse[];
  wantsTools(reply: Reply): boolean;
  /** Puts the reply and its answers into the next call's request; the answers' text for the transcript. */
  append(reply: Reply, answers: readonly ToolAnswer[]): string;
  /** The error of a think aborted between calls. */
  aborted: AbortedError;
}

/** What the provider's side is made from: the think's tools (traced by its recorder) and the input. */
export interface ThinkStart {
  readonly tools: ThinkTools | undefined;
  readonly input: ThinkInput;
}

/** Runs one think: the tool loop (think-tool-loop.ts) until the model ends its turn or the iteration guard stops it. */
export async function runModelThink<Reply, Params>(
  thinker: ThinkerParts,
  input: ThinkInput,
  signal: AbortSignal,
  providerOf: (start: ThinkStart) => ThinkProvider<Reply, Params>,
): Promise<ThinkResult> {
  const what = `think for turn ${input.turnId}`;
  const recorder = new CallTraceRecorder(thinker.model, thinker.price, thinker.now);
  const given = thinker.given;
  const tools = given.tools === undefined ? undefined : recorder.traced(given.tools);
  const ctx: ToolContext = {
    turnIds: [...new Set([...input.pendingMessages.map((m) => m.turnId), input.turnId])],
    goalIds: input.goals.map((g) => g.id),
    taskTools: taskOfferableTools(tools?.definitions() ?? []).map((t) => t.name),
  };
  const provider = providerOf({ tools, input });
  const session = new ThinkSession(thinker, recorder, provider.system);
  const deltas = new ThinkDeltas(given.replies, ctx.turnIds, provider.toolName);
  const partial = () => session.partial(signal.aborted);
  // Calls a crash left unknown are told to the next think of their turn, as notices of the state message.
  const notices = tools?.notices(ctx.turnIds) ?? [];
  const shown = notices.length === 0 ? input : { ...input, notices: [...input.notices, ...notices.map((n) => n.line)] };
  thinker.calibration.beginThink(thinker.now());
  const call = async (n: number): Promise<Reply | null> => {
    const request = requestOrFull(() => provider.request(shown), n);
    if (request === null) return null;
    if (n === 1)
      session.promptBuilt(provider.sections(request), request.built.conversation.join('') + request.built.state);
    // Streamed only while someone watches (reply-deltas.ts): the reply is the same either way.
    const plainTurn = session.plainTextTurn(input);
    const streaming = deltas.nextCall(plainTurn);
    const reply = await provider.call(request.params, `${what} (call ${n})`, partial, { recorder, streaming });
    const read = provider.read(reply);
    calibrate(thinker, provider.body(request.params), read.usage);
    session.replied(read.usage, read.transcript, read.text);
    // Before the call's tool calls are applied: its text answers first, whatever they do (reply-deltas.ts).
    session.answeredInText(plainTurn, read.beforeTools);
    return reply;
  };
  const model = {
    maxIterations: thinker.maxToolIterations,
    call,
    toolUses: (reply: Reply) => provider.toolUses(reply),
    wantsTools: (reply: Reply) => provider.wantsTools(reply),
    append: (reply: Reply, answers: readonly ToolAnswer[]) => session.toolResultsSent(provider.append(reply, answers)),
  };
  const dispatch = toolDispatcher(
    { tools, memory: given.memory, schedules: given.schedules, ctx, turnId: input.turnId },
    session,
    signal,
  );
  await runThinkLoop(model, dispatch, () => {
    if (signal.aborted) throw provider.aborted(what, partial(), signal.reason);
  });
  tools?.acknowledge(notices.map((n) => n.callId));
  return session.finished(input);
}

/** The error of a call aborted before it starts (each provider classifies its own). */
export type AbortedError = (what: string, partial: unknown, reason: unknown) => Error;

/** A summary request's parameters, as anthropic-summary.ts builds them. */
export type SummaryParams = Parameters<SummaryCallDeps['send']>[0];

/** A summary update (anthropic-summary.ts), bounded like a think, sent by the provider; its cost is returned for the ledger. */
export async function runModelSummary(
  thinker: ThinkerParts & { readonly maxTokens: number },
  request: SummaryRequest,
  signal: AbortSignal,
  provider: {
    aborted: AbortedError;
    send(params: SummaryParams, what: string, empty: () => SummaryResult): Promise<{ text: string; usage: TokenUsage }>;
  },
): Promise<SummaryResult> {
  const what = 'conversation summary update';
  const result = (text: string, calls: readonly TokenUsage[]): SummaryResult => ({
    text,
    usage: sumUsage(calls),
    costMicroUsd: totalCostMicroUsd(calls, thinker.price),
    model: thinker.model,
  });
  const empty = () => result('', []);
  if (signal.aborted) throw provider.aborted(what, empty(), signal.reason);
  return summarizeWithClaude(request, {
    counter: thinker.calibration,
    send: async (params) => {
      const { text, usage } = await provider.send(params, what, empty);
      return result(text, [usage]);
    },
    maxTokens: thinker.maxTokens,
    model: thinker.model,
  });
}

/** A sub-agent task: its tool loop (task-tool-loop.ts) with the thinker's tools, the conversation the provider starts. */
export function runModelTask<Reply>(
  thinker: ThinkerParts,
  task: { input: SwarmTaskInput; signal: AbortSignal; hooks: TaskHooks | undefined },
  aborted: AbortedError,
  start: TaskModel<Reply>['start'],
): Promise<SwarmTaskOutput> {
  const model: TaskModel<Reply> = {
    model: thinker.model,
    price: thinker.price,
    maxIterations: thinker.maxToolIterations,
    checkAborted: (signal, what, partial) => {
      if (signal.aborted) throw aborted(what, partial(), signal.reason);
    },
    start,
  };
  return runTaskLoop(model, thinker.given.tools, task.input, task.signal, task.hooks);
}

/**
 * Call `n`'s bounded request; null when what the tool loop added no longer leaves room for the state (the think ends
 * with what it has done). The first call has nothing to end with: its CONTEXT_TOO_SMALL fails the think.
 */
function requestOrFull<P>(request: () => FittedRequest<P>, n: number): FittedRequest<P> | null {
  try {
    return request();
  } catch (err) {
    if (n > 1 && err instanceof VigilError && err.code === 'CONTEXT_TOO_SMALL') return null;
    throw err;
  }
}

/** Calibrates the bound's estimate on what the API counted for the prompt (cached tokens included). */
function calibrate(thinker: ThinkerParts, body: unknown, usage: TokenUsage): void {
  const estimated = estimateTokens(JSON.stringify(body));
  const reported = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  if (thinker.calibration.observe(estimated, reported) === 'implausible')
    thinker.given.bus?.emit('think.usage_implausible', { reported, estimated });
}
