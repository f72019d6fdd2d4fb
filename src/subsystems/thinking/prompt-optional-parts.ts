/** The optional parts of a budgeted prompt, each fitted into what is left within its share. */
import {
  entryLine,
  iso,
  MIN_ITEM_TOKENS,
  quote,
  renderSection,
  section,
  sectionFrameTokens,
  type Section,
  type SectionContext,
} from './prompt-state-sections.js';
import { recalledMessageLine } from './recall-tool.js';
import type { ThinkInput } from './thinker.schema.js';
import { fitLines, type TokenBudget } from './token-budget.js';
import { truncateToTokens } from './token-truncate.js';

// Shares of the room left after the fixed parts, after the turn's own messages.
// Larger than the summary's own bound (15% of the whole context), so a stored summary is shown whole.
const SUMMARY_SHARE = 0.4;
const RECALL_SHARE = 0.15;
const REVIEW_SHARE = 0.35;
/** An entry line's frame: seq, turn id, time, sender, quotes. */
const ENTRY_FRAME_TOKENS = 60;

/** The section the recent conversation is sent in. */
export const RECENT = 'recent_conversation';

/** The rolling summary: its own block right after the cached prefix, since it changes rarely. */
export function fitSummary(
  { input, counter, cap }: SectionContext,
  budget: TokenBudget,
): { text: string; tokens: number } | null {
  const stored = input.conversation?.summary;
  if (stored == null || stored.text.trim() === '') return null;
  const open = `<conversation_summary through_seq="${stored.throughSeq}">`;
  const close = '</conversation_summary>';
  const room = Math.min(budget.left, cap(SUMMARY_SHARE)) - counter.count(`${open}\n\n${close}`);
  const text = `${open}\n${truncateToTokens(stored.text, room, counter)}\n${close}`;
  const tokens = counter.count(text);
  return budget.take(tokens) ? { text, tokens } : null;
}

/** The recalled memories, in the order recalled, as many as fit their share. */
export function fitRecalled(
  { counter, cap }: SectionContext,
  budget: TokenBudget,
  memories: NonNullable<ThinkInput['recalledMemories']>,
): Section {
  const name = 'recalled_memories';
  budget.charge(sectionFrameTokens(name, counter));
  const each = cap(RECALL_SHARE / 3);
  const fitted = fitLines(memories, budget.share(cap(RECALL_SHARE)), {
    newestFirst: false,
    render: (memo) =>
      `- [${memo.id}] ${memo.source}, ${iso(memo.createdAt)}: ${quote(truncateToTokens(memo.content, each, counter))}`,
    cost: (line) => counter.count(`${line}\n`),
  });
  return section(name, fitted.lines, counter, fitted.tokens);
}

/**
 * Older messages recalled by their words (they have left the recent conversation), in the order recalled, as many as
 * fit their share: `- [msg-SEQ] conversation, WHO, TIME: "TEXT"`.
 */
export function fitRecalledMessages(
  { counter, cap }: SectionContext,
  budget: TokenBudget,
  messages: NonNullable<ThinkInput['recalledMessages']>,
): Section {
  const name = 'recalled_messages';
  budget.charge(sectionFrameTokens(name, counter));
  const each = cap(RECALL_SHARE / 3);
  const fitted = fitLines(messages, budget.share(cap(RECALL_SHARE)), {
    newestFirst: false,
    render: (m) => `- ${recalledMessageLine({ ...m, text: truncateToTokens(m.text, each, counter) })}`,
    cost: (line) => counter.count(`${line}\n`),
  });
  return section(name, fitted.lines, counter, fitted.tokens);
}

/** The turn under review: its messages and tool calls by time, the newest that fit, with a note on the rest. */
export function fitReview(
  { counter, cap }: SectionContext,
  budget: TokenBudget,
  review: NonNullable<ThinkInput['turnUnderReview']>,
  entryMax: number,
): Section {
  const name = 'turn_under_review';
  const entries = [
    ...review.messages.map((m) => ({
      at: m.at,
      render: (room: number) => entryLine(m, truncateToTokens(m.text, room, counter)),
    })),
    ...review.toolCalls.map((c) => ({
      at: c.at,
      render: (room: number) => {
        const outcome = c.ok === undefined ? 'outcome unknown' : c.ok ? 'ok' : 'failed';
        const args = truncateToTokens(c.args, Math.floor(room / 3), counter);
        const result = c.result === undefined ? '' : `: ${quote(truncateToTokens(c.result, room, counter))}`;
        return `- ${iso(c.at)} tool ${c.name} ${args} → ${outcome}${result}`;
      },
    })),
  ].sort((x, y) => x.at - y.at);
  const opening = `turn from ${iso(review.startedAt)} to ${iso(review.endedAt)}`;
  const openingTokens = counter.count(`${opening}\n`);
  const omittedNote = (n: number) => `(${n} earlier entries of this turn left out for room)`;
  const limit =
    Math.min(budget.left, cap(REVIEW_SHARE)) -
    sectionFrameTokens(name, counter) -
    openingTokens -
    counter.count(`${omittedNote(entries.length)}\n`);
  const cost = (line: string) => counter.count(`${line}\n`);
  const fitted = fitLines(entries, budget.share(limit), { newestFirst: true, render: (e) => e.render(entryMax), cost });
  const notes = fitted.omitted > 0 ? [omittedNote(fitted.omitted)] : [];
  const always = openingTokens + notes.reduce((sum, n) => sum + cost(n), 0);
  const built = section(name, [opening, ...notes, ...fitted.lines], counter, always + fitted.tokens);
  // The opening and the note are always sent; the entries were taken as they were fitted.
  budget.charge(built.tokens - fitted.tokens);
  return built;
}

/** The recent conversation as sent, and its tokens (its blocks' framing included). */
export interface RecentConversation {
  blocks: string[];
  tail: string;
  tokens: number;
  shown: number;
  omitted: number;
}

/**
 * The recent conversation: what the turn's own messages and the review do not already show, newest first while
 * they fit. Each entry is its own block, so each pays a block's framing too; its text is cut to the entry cap, or
 * to what is left when that is less.
 */
export function fitRecent(
  { input, counter }: SectionContext,
  budget: TokenBudget,
  opts: { summarized: boolean; blockFrame: number; entryMax: number },
): RecentConversation {
  const answering = new Set(input.pendingMessages.map((m) => m.turnId));
  const reviewed = new Set((input.turnUnderReview?.messages ?? []).map((m) => m.seq));
  const candidates = (input.conversation?.recent ?? []).filter(
    (m) => !reviewed.has(m.seq) && !(m.role === 'user' && answering.has(m.turnId)),
  );
  const fitted = fitLines(candidates, budget, {
    newestFirst: true,
    render: (m, left) => {
      // The line around the text (seq, turn, time, sender) takes under ENTRY_FRAME_TOKENS.
      const textRoom = Math.min(opts.entryMax, left - ENTRY_FRAME_TOKENS - opts.blockFrame);
      return textRoom < MIN_ITEM_TOKENS ? null : entryLine(m, truncateToTokens(m.text, textRoom, counter));
    },
    cost: (line) => counter.count(`${line}\n`) + opts.blockFrame,
  });
  // Said in words, so the model knows older turns exist beyond what it sees; its room was held back with the frame.
  const omitted = fitted.omitted > 0 ? omittedNoteText(fitted.omitted, opts.summarized) : null;
  const tokens =
    sectionFrameTokens(RECENT, counter) + fitted.tokens + (omitted === null ? 0 : counter.count(`${omitted}\n`));
  return { ...conversationParts(fitted.lines, omitted), tokens, shown: fitted.lines.length, omitted: fitted.omitted };
}

/**
 * The recent conversation's blocks (one an entry, oldest first, the first opening the section) and the section's
 * end, which goes in the state since no later think shares it: with nothing shown, the whole section.
 */
function conversationParts(entries: readonly string[], omitted: string | null): { blocks: string[]; tail: string } {
  const notes = omitted === null ? [] : [omitted];
  if (entries.length === 0) return { blocks: [], tail: renderSection(RECENT, notes) };
  const blocks = entries.map((text, i) => `${i === 0 ? `<${RECENT}>\n` : ''}${text}\n`);
  return { blocks, tail: [...notes, `</${RECENT}>`].join('\n') };
}

/** The note on the older entries left out of the recent conversation. */
export function omittedNoteText(n: number, summarized: boolean): string {
  return `(${n} older entries are not shown${summarized ? '; the conversation summary covers what came before them' : ''})`;
}
