/**
 * The prompt-budget builder, pure: renders a think's volatile state into sections in a fixed order and keeps the
 * whole prompt under `VIGIL_CONTEXT_TOKENS`. What the think must answer is always shown (each oversized item cut with
 * a note); the rolling summary, recalled memories, recalled older messages, the turn under review and the recent conversation (the newest
 * entries first, as many as fit) get what is left, in that order, each within its share.
 *
 * The recent conversation is rendered oldest first as blocks of its own, one an entry, ahead of the state: entries
 * only ever join at the end, so the blocks a think shares with the one before it stay byte for byte the same and are
 * read from the prompt cache. An entry's text is cut against the bound alone (never against what is left of it), so
 * its bytes do not move from one think, or one call of a tool loop, to the next.
 */
import { VigilError } from '../../errors.js';
import type { PromptSectionTrace } from '../../protocol/think-trace.schema.js';
import {
  fitRecalled,
  fitRecalledMessages,
  fitRecent,
  fitReview,
  fitSummary,
  omittedNoteText,
  RECENT,
} from './prompt-optional-parts.js';
import {
  LINE_CAP_TOKENS,
  MIN_ITEM_TOKENS,
  renderSection,
  sectionFrameTokens,
  STATE_HEAD,
  STATE_TAIL,
  type SectionContext,
} from './prompt-state-sections.js';
import type { ThinkInput } from './thinker.schema.js';
import { TokenBudget } from './token-budget.js';
import type { TokenCalibration } from './token-calibration.js';
import { estimateTokens } from './token-estimate.js';
import { truncateToTokens } from './token-truncate.js';

/** What the builder needs besides the think's input. */
export interface PromptBudgetArgs {
  input: ThinkInput;
  /** The bound on the whole request, in calibrated tokens. */
  boundTokens: number;
  /** What the fixed parts already take: identity, instructions, tools and the request's own framing. */
  fixedTokens: number;
  /** Room kept for what the tool loop appended after the state message (assistant turns and tool results). */
  reservedTokens?: number;
  counter: TokenCalibration;
}

/** A prompt within its bound. */
export interface BudgetedPrompt {
  /** The rolling summary's block (after the cached prefix), or null when there is none. */
  summary: string | null;
  /**
   * The recent conversation, oldest first, one text block an entry (the first opens `<recent_conversation>`); the
   * first user message is these blocks, then `state`, which closes the section. Empty: the section is in `state`.
   */
  conversation: string[];
  /** The first user message after the conversation blocks: the state, every volatile value. */
  state: string;
  /** Each volatile section with its tokens (the summary first, when shown). */
  sections: PromptSectionTrace[];
  /** Tokens of the summary, the conversation blocks (their framing included) and the state together. */
  tokens: number;
  /** Recent conversation entries shown, and those left out for room. */
  recentShown: number;
  recentOmitted: number;
}

// Of the whole bound, not of the room left: the room moves with the state and the tool loop, the bound does not.
const ENTRY_SHARE_OF_BOUND = 0.1;
/** What one more text block adds to the request's JSON: `{"type":"text","text":""},`. */
const BLOCK_FRAME_TOKENS = estimateTokens('{"type":"text","text":""},');

/** Builds the state (and the summary block) of one model call within `boundTokens`. */
export function buildBudgetedPrompt(args: PromptBudgetArgs): BudgetedPrompt {
  const { input, counter } = args;
  const available = args.boundTokens - args.fixedTokens - (args.reservedTokens ?? 0);
  const ctx: SectionContext = {
    input,
    counter,
    cap: (share, items = 1) => Math.max(MIN_ITEM_TOKENS, Math.floor((available * share) / Math.max(1, items))),
    line: (text) => truncateToTokens(text, LINE_CAP_TOKENS, counter),
  };
  const budget = TokenBudget.of(available);
  const head = STATE_HEAD.map((build) => build(ctx));
  const tail = STATE_TAIL.map((build) => build(ctx));
  chargeRequired(
    budget,
    [...head, ...tail].reduce((sum, s) => sum + s.tokens, 0),
    args,
  );
  // The recent conversation's frame (its tags, the note on what is left out, the state's own block once the message
  // is in blocks) is held back first: it is always sent, so no optional part may take its room.
  const blockFrame = counter.scale(BLOCK_FRAME_TOKENS);
  if (input.conversation !== undefined) {
    chargeRequired(
      budget,
      sectionFrameTokens(RECENT, counter) +
        counter.count(`${omittedNoteText(Number.MAX_SAFE_INTEGER, true)}\n`) +
        blockFrame,
      args,
    );
  }

  // What is left goes to each optional part in turn, each within its share.
  const summary = fitSummary(ctx, budget);
  const recalled = input.recalledMemories === undefined ? null : fitRecalled(ctx, budget, input.recalledMemories);
  const recalledMessages =
    input.recalledMessages === undefined || input.recalledMessages.length === 0
      ? null
      : fitRecalledMessages(ctx, budget, input.recalledMessages);
  const entryMax = entryCap(args.boundTokens);
  const review = input.turnUnderReview === undefined ? null : fitReview(ctx, budget, input.turnUnderReview, entryMax);
  const recent =
    input.conversation === undefined
      ? null
      : fitRecent(ctx, budget, { summarized: summary !== null, blockFrame, entryMax });

  const ordered = [
    ...head,
    ...(recalled === null ? [] : [recalled]),
    ...(recalledMessages === null ? [] : [recalledMessages]),
    ...(review === null ? [] : [review]),
    ...tail,
  ];
  const rendered = ordered.map((s) => renderSection(s.name, s.lines));
  const state = [...(recent === null ? [] : [recent.tail]), ...rendered].join('\n\n');
  const sections: PromptSectionTrace[] = [
    ...(summary === null ? [] : [{ name: 'summary', tokens: summary.tokens, cached: true, text: summary.text }]),
    ...(recent === null
      ? []
      : [
          {
            name: RECENT,
            tokens: recent.tokens,
            ...(recent.blocks.length === 0 ? {} : { cached: true }),
            text: recent.blocks.join('') + recent.tail,
          },
        ]),
    ...ordered.map((s, i) => ({ name: s.name, tokens: s.tokens, text: rendered[i]! })),
  ];
  const blocks = recent?.blocks ?? [];
  const conversationTokens =
    blocks.length === 0 ? 0 : blocks.reduce((sum, block) => sum + counter.count(block) + blockFrame, blockFrame);
  return {
    summary: summary?.text ?? null,
    conversation: blocks,
    state,
    sections,
    tokens: (summary?.tokens ?? 0) + conversationTokens + counter.count(state),
    recentShown: recent?.shown ?? 0,
    recentOmitted: recent?.omitted ?? 0,
  };
}

/** Charges what is always sent; refuses the think when it does not fit. */
function chargeRequired(budget: TokenBudget, tokens: number, args: PromptBudgetArgs): void {
  budget.charge(tokens);
  if (budget.left < 0) throw unfittable(args, budget.used);
}

function unfittable(args: PromptBudgetArgs, stateTokens: number): VigilError {
  return new VigilError(
    'CONTEXT_TOO_SMALL',
    `The prompt cannot fit VIGIL_CONTEXT_TOKENS=${args.boundTokens}: the fixed prefix takes ${args.fixedTokens} tokens and ` +
      `this think's own state ${stateTokens} more. Raise VIGIL_CONTEXT_TOKENS.`,
    { data: { variable: 'VIGIL_CONTEXT_TOKENS', boundTokens: args.boundTokens, fixedTokens: args.fixedTokens } },
  );
}

/** The most one conversation entry's text may take: a tenth of the bound (at least MIN_ITEM_TOKENS). */
function entryCap(boundTokens: number): number {
  return Math.max(MIN_ITEM_TOKENS, Math.floor(boundTokens * ENTRY_SHARE_OF_BOUND));
}
