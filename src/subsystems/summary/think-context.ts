/**
 * What a think is shown of the past: the rolling summary and the recent conversation after it, and, for a debrief,
 * the turn it validates (its messages and replies, the model's own tool calls and the MCP tool calls it made).
 */
import type { ThinkAction, ThinkConversation, TurnUnderReview } from '../thinking/thinker.schema.js';
import type { ConversationLog } from '../conversation/conversation-log.js';
import type { TurnWorkLog } from '../conversation/turn-work-log.js';
import type { ToolCallRecord } from '../../protocol/tool-call.schema.js';
import { RECENT_KEPT, type ChargeSummary, type ConversationSummaryKeeper } from './conversation-summary.js';

/** The least an entry line can take in a prompt: no more entries than the bound over this are ever read. */
const MIN_ENTRY_TOKENS = 20;
/** Entries handed to one prompt at most, whatever the bound (the builder walks them newest first and stops early). */
const MAX_RECENT_READ = RECENT_KEPT;
/** Entries a debrief's turn is looked for in. */
const REVIEW_READ = 400;

/** The sources. */
export interface ThinkContextOptions {
  keeper: ConversationSummaryKeeper;
  conversation: ConversationLog;
  work: TurnWorkLog;
  /** The MCP tool calls on record (the ToolCallLog), oldest first. */
  toolCalls?: () => Promise<readonly ToolCallRecord[]>;
}

/** Reads a think's past for the heartbeat, and hands finished thinks to the summary and the work log. */
export class ThinkContext {
  constructor(private readonly options: ThinkContextOptions) {}

  /** The summary and the entries after it (as many as a prompt of `contextTokens` could show), from memory. */
  conversation(contextTokens: number): ThinkConversation {
    const { keeper } = this.options;
    const limit = Math.min(MAX_RECENT_READ, Math.ceil(contextTokens / MIN_ENTRY_TOKENS));
    const summary = keeper.summary();
    return {
      summary: summary === null ? null : { text: summary.text, throughSeq: summary.throughSeq },
      recent: keeper.recent(limit),
    };
  }

  /** The turn that ran from `from` to `to` (epoch ms): its entries and every tool call made in it, oldest first. */
  async review(from: number, to: number): Promise<TurnUnderReview> {
    const { conversation, work, toolCalls } = this.options;
    const messages = (await conversation.readLast(REVIEW_READ)).filter((m) => m.at >= from && m.at <= to);
    const own = work
      .between(from, to)
      .flatMap((record) => record.calls.map((call) => ({ ...call, at: record.at, ok: true })));
    const external = (await (toolCalls?.() ?? Promise.resolve([])))
      .filter((call) => call.at >= from && call.at <= to)
      .map((call) => ({
        name: call.name,
        args: JSON.stringify(call.args) ?? 'null',
        at: call.at,
        ...(call.result === undefined ? {} : { ok: call.result.ok, result: call.result.text }),
      }));
    return { startedAt: from, endedAt: to, messages, toolCalls: [...own, ...external].sort((a, b) => a.at - b.at) };
  }

  /** A think finished at `at`: its own tool calls go to the work log (replies are in the conversation log already). */
  recordWork(turnId: string, at: number, actions: readonly ThinkAction[]): void {
    const calls = actions.flatMap((action) => {
      if (action.type === 'reply') return [];
      const { type, ...args } = action;
      return [{ name: type, args: JSON.stringify(args) }];
    });
    return this.options.work.record({ at, turnId, calls });
  }

  /** After a think: fold what fell out of the window into the summary, in the background. */
  requestSummaryUpdate(charge: ChargeSummary): void {
    this.options.keeper.requestUpdate(charge);
  }

  /** The summary's watermark, for checkpoints. */
  summaryWatermark(): number {
    return this.options.keeper.watermark();
  }
}
