/**
 * What one think has gathered so far, whatever the provider: the usage of each completed call, the actions its tool
 * calls produced, the trace (calls, tool calls, prompt sections, transcript). Its partial result is what a failed or
 * preempted think reports; its final result is what a finished one returns.
 */
import type { PromptSectionTrace } from '../../protocol/think-trace.schema.js';
import { sumUsage } from './token-usage.js';
import type { CallTraceRecorder } from './call-trace-recorder.js';
import { totalCostMicroUsd, type ModelPricing } from './pricing.js';
import type { ThinkAction, ThinkInput, ThinkResult, TokenUsage } from './thinker.schema.js';

/** The stop reasons of a call that asked for tools: Anthropic's `tool_use`, Chat Completions' `tool_calls`. */
const WANTS_TOOLS: ReadonlySet<string> = new Set(['tool_use', 'tool_calls']);

/** The model a session is charged at. */
export interface SessionModel {
  readonly model: string;
  readonly price: ModelPricing;
}

/** One think's gathered state; every field only grows while the think runs. */
export class ThinkSession {
  /** The usage of each completed model call, in order: what the think has spent. */
  readonly calls: TokenUsage[] = [];
  /** The actions of Vigil's own tools the model called, in order. */
  readonly actions: ThinkAction[] = [];
  private readonly transcript: { role: string; text: string }[] = [];
  private sections: readonly PromptSectionTrace[] = [];
  /** The text of the last model reply: the answer when the model wrote it instead of calling reply. */
  private lastText = '';
  /** A call waits for an operator's approval: the turn stays open and its closing text is not taken as the answer. */
  private awaitingApproval = false;

  constructor(
    private readonly priced: SessionModel,
    readonly recorder: CallTraceRecorder,
    /** The system prompt's blocks, as the trace's content shows them. */
    private readonly system: readonly { text: string }[],
  ) {}

  /** The first call's prompt: its sections for the trace, and the user message the transcript starts with. */
  promptBuilt(sections: readonly PromptSectionTrace[], userText: string): void {
    this.sections = sections;
    this.transcript.push({ role: 'user', text: userText });
  }

  /** A model call completed: what it cost, what it said (as the transcript shows it) and its plain text. */
  replied(usage: TokenUsage, transcriptText: string, text: string): void {
    this.calls.push(usage);
    this.transcript.push({ role: 'assistant', text: transcriptText });
    this.lastText = text;
  }

  /** The tool results sent back to the model, as the transcript shows them. */
  toolResultsSent(transcriptText: string): void {
    this.transcript.push({ role: 'user', text: transcriptText });
  }

  /** A tool call waits for an operator's decision. */
  approvalPending(): void {
    this.awaitingApproval = true;
  }

  /**
   * A failed think applies nothing (it is tried again or its turns end), but what it spent counts. A preempted one
   * keeps the actions of the calls it completed: the work done before it yielded is not thrown away.
   */
  partial(aborted: boolean): ThinkResult {
    return { ...this.result(aborted ? [...this.actions] : []), trace: this.trace(aborted ? 'aborted' : 'error') };
  }

  /** The finished think's result: its actions, and the final text as a reply when it answers a message left open. */
  finished(input: ThinkInput): ThinkResult {
    const done = this.result([
      ...this.actions,
      ...(this.awaitingApproval ? [] : unsentReply(input, this.actions, this.lastText)),
    ]);
    // Still asking for tools after the last call the guard allows: the iteration guard ended the think.
    const stopReason = WANTS_TOOLS.has(this.recorder.stopReason) ? 'max_tool_iterations' : this.recorder.stopReason;
    return { ...done, trace: this.trace(stopReason) };
  }

  private result(actions: ThinkAction[]): ThinkResult {
    return {
      model: this.priced.model,
      actions,
      usage: sumUsage(this.calls),
      costMicroUsd: totalCostMicroUsd(this.calls, this.priced.price),
    };
  }

  /** The trace a think hands back: its calls, tool calls, the prompt's sections, and the transcript as content. */
  private trace(stopReason: string): NonNullable<ThinkResult['trace']> {
    return {
      calls: [...this.recorder.calls],
      toolCalls: [...this.recorder.toolCalls],
      sections: [...this.sections],
      stopReason,
      content: { system: this.system.map((block) => block.text).join('\n\n'), messages: [...this.transcript] },
    };
  }
}

/**
 * A user message must not go unanswered because the model wrote its answer as text instead of calling reply: the
 * final text answers one message still unanswered (this turn's own, else the newest). Others stay open for the
 * next think, which sees them again; they are never marked answered by a reply meant for another.
 */
function unsentReply(input: ThinkInput, actions: readonly ThinkAction[], text: string): ThinkAction[] {
  if (text === '') return [];
  const answered = new Set(actions.flatMap((a) => (a.type === 'reply' ? [a.turnId] : [])));
  const waiting = input.pendingMessages.filter((m) => !answered.has(m.turnId));
  if (waiting.length === 0 || answered.size > 0) return [];
  const target = waiting.find((m) => m.turnId === input.turnId) ?? waiting[waiting.length - 1]!;
  return [{ type: 'reply', turnId: target.turnId, text }];
}
