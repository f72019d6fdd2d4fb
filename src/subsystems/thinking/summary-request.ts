/** What a rolling-summary update asks of a thinker, and what it gives back (the cost goes to the budget ledger). */
import type { ConversationMessage } from '../../protocol/conversation.schema.js';
import type { TokenUsage } from './thinker.schema.js';

/** Fold `messages` (the oldest entries outside the prompt's window, oldest first) into `previous`. */
export interface SummaryRequest {
  /** The summary so far ('' for none). */
  previous: string;
  messages: readonly ConversationMessage[];
  /** The most tokens the new summary may take (it is cut to this if longer). */
  maxSummaryTokens: number;
  /** The bound on the update's whole request: `VIGIL_CONTEXT_TOKENS`. */
  contextTokens: number;
}

/** The updated summary, and what producing it cost (zero for the offline, extractive one). */
export interface SummaryResult {
  text: string;
  model: string;
  usage: TokenUsage;
  costMicroUsd: number;
}
