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
  /** The replies the model wrote as its own text (`answeredInText`), apart from those it wrote with the reply tool. */
  private readonly textReplies = new Set<ThinkAction>();

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

  /**
   * The turn the next call's own text answers (null: none), judged before the call, so its text can stream as it is
   * written (reply-deltas.ts). The final text's rule (`unsentReply`): no reply call made, no tool call waiting for an
   * operator, a message open; once the think has answered a turn in text, later text continues that answer.
   */
  plainTextTurn(input: ThinkInput): string | null {
    if (this.awaitingApproval) return null;
    const replies = this.actions.filter((a) => a.type === 'reply');
    if (replies.some((a) => !this.textReplies.has(a))) return null;
    return replies[0]?.turnId ?? plainReplyTarget(input, this.actions);
  }

  /**
   * A call ended with `text` (trimmed) before its first tool call, `turnId` being what `plainTextTurn` said before it:
   * the text is a reply to that turn, applied before the call's tool calls (so it comes first in the turn's final
   * text), whatever they are, a reply call included (unless one waits for an operator: `approvalPending`). Decided at
   * the call's end, not the think's, because the text may have streamed to the user as it was written, and a piece
   * given out cannot be taken back; decided the same whether it streamed or not, so the reply never depends on who
   * watches.
   */
  answeredInText(turnId: string | null, text: string): void {
    if (turnId === null || text === '') return;
    const reply: ThinkAction = { type: 'reply', turnId, text };
    this.actions.push(reply);
    this.textReplies.add(reply);
  }

  /**
   * A tool call waits for an operator's decision: the turn stays open for it, so the think's text is no reply after
   * all (the one case where text that streamed is not in the turn's final reply: that comes after the decision).
   */
  approvalPending(): void {
    this.awaitingApproval = true;
    for (let i = this.actions.length - 1; i >= 0; i--)
      if (this.textReplies.has(this.actions[i]!)) this.actions.splice(i, 1);
    this.textReplies.clear();
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
 * next think, which sees them again; they are never marked answered by a reply meant for another. Each call's text
 * before its tool calls has answered already (`answeredInText`): this is left for text no call answered with, such as
 * a last call's text after a tool call when the iteration guard ended the think.
 */
function unsentReply(input: ThinkInput, actions: readonly ThinkAction[], text: string): ThinkAction[] {
  const turnId = text === '' ? null : plainReplyTarget(input, actions);
  return turnId === null ? [] : [{ type: 'reply', turnId, text }];
}

/** The message the model's text answers when it calls no reply: this turn's own if pending, else the newest. */
function plainReplyTarget(input: ThinkInput, actions: readonly ThinkAction[]): string | null {
  if (actions.some((a) => a.type === 'reply')) return null;
  const waiting = input.pendingMessages;
  return (waiting.find((m) => m.turnId === input.turnId) ?? waiting[waiting.length - 1])?.turnId ?? null;
}
