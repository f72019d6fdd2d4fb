/**
 * The prompt-budget builder, pure: renders a think's volatile state into sections in a fixed order and keeps the
 * whole prompt under `VIGIL_CONTEXT_TOKENS`. What the think must answer is always shown (each oversized item cut with
 * a note); the rolling summary, recalled memories, the turn under review and the recent conversation (the newest
 * entries first, as many as fit) get what is left, in that order, each within its share.
 *
 * The recent conversation is rendered oldest first as blocks of its own, one an entry, ahead of the state: entries
 * only ever join at the end, so the blocks a think shares with the one before it stay byte for byte the same and are
 * read from the prompt cache. An entry's text is cut against the bound alone (never against what is left of it), so
 * its bytes do not move from one think, or one call of a tool loop, to the next.
 */
import { VigilError } from '../../errors.js';
import type { ConversationMessage } from '../../protocol/conversation.schema.js';
import type { PromptSectionTrace } from '../../protocol/think-trace.schema.js';
import type { ThinkInput } from './thinker.schema.js';
import { fitLines, TokenBudget } from './token-budget.js';
import type { TokenCalibration } from './token-calibration.js';
import { estimateTokens } from './token-estimate.js';

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

// Shares of the room left after the fixed parts. The turn's own messages come first; the conversation fills the rest.
const PENDING_SHARE = 0.5;
const SWARM_SHARE = 0.2;
// Larger than the summary's own bound (15% of the whole context), so a stored summary is shown whole.
const SUMMARY_SHARE = 0.4;
const RECALL_SHARE = 0.15;
const REVIEW_SHARE = 0.35;
// Of the whole bound, not of the room left: the room moves with the state and the tool loop, the bound does not.
const ENTRY_SHARE_OF_BOUND = 0.1;
/** What one more text block adds to the request's JSON: `{"type":"text","text":""},`. */
const BLOCK_FRAME_TOKENS = estimateTokens('{"type":"text","text":""},');
/** No line of state (a goal title, a memory, a notice) is sent longer than this. */
const LINE_CAP_TOKENS = 400;
/** The least an oversized message is cut to, so a crowded turn still shows the start of each message. */
const MIN_ITEM_TOKENS = 48;
/** An entry line's frame: seq, turn id, time, sender, quotes. */
const ENTRY_FRAME_TOKENS = 60;

const iso = (ms: number) => new Date(ms).toISOString();
const num = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));
const quote = (text: string) => JSON.stringify(text);

/**
 * `text` cut so that `counter.count` of the result (note included) is at most `maxTokens`, with a note saying how
 * much was left out; unchanged when it fits. Cuts at code points, never inside a surrogate pair.
 */
export function truncateToTokens(text: string, maxTokens: number, counter: TokenCalibration): string {
  if (counter.count(text) <= maxTokens) return text;
  const points = Array.from(text);
  const note = (shown: number) => ` […truncated by Vigil: ${shown} of ${points.length} characters shown]`;
  const noteTokens = counter.count(note(points.length));
  // Every code point is at least one byte (up to six JSON-escaped): start from the byte room and shrink.
  let keep = Math.max(0, Math.min(points.length, Math.floor(((maxTokens - noteTokens) * 3) / counter.factor)));
  for (;;) {
    const cut = points.slice(0, keep).join('') + note(keep);
    const over = counter.count(cut) - maxTokens;
    if (over <= 0 || keep === 0) return cut;
    keep = Math.max(0, keep - Math.max(1, Math.ceil((over * 3) / 6)));
  }
}

/** A section as sent: its lines and its tokens (the tags, the newlines and a possible `(none)` included). */
interface Section {
  readonly name: string;
  readonly lines: readonly string[];
  readonly tokens: number;
}

/** What every section is made from. */
interface SectionContext {
  input: ThinkInput;
  counter: TokenCalibration;
  /** Tokens for one of `items` sharing `share` of the room left after the fixed parts. */
  cap: (share: number, items?: number) => number;
  /** A line of state within LINE_CAP_TOKENS. */
  line: (text: string) => string;
}

function section(name: string, lines: readonly string[], counter: TokenCalibration, linesTokens?: number): Section {
  const tokens = linesTokens ?? lines.reduce((sum, l) => sum + counter.count(`${l}\n`), 0);
  return { name, lines, tokens: sectionFrameTokens(name, counter) + tokens };
}

function sectionFrameTokens(name: string, counter: TokenCalibration): number {
  return counter.count(`<${name}>\n(none)\n</${name}>\n\n`);
}

// The state's own sections, always shown whole (each oversized item cut), in the order sent: the recalled memories
// and the turn under review go between the two.
const STATE_HEAD: ReadonlyArray<(ctx: SectionContext) => Section> = [
  ({ input, counter }) => {
    const b = input.budget;
    const budget =
      b === undefined
        ? 'budget: no daily cap applies'
        : `budget: $${b.spentTodayUsd.toFixed(2)} of $${b.dailyCapUsd.toFixed(2)} spent today (${b.pct.toFixed(1)}%)`;
    return section('heartbeat', [`reason: ${input.reason}`, `turn: ${input.turnId}`, `now: ${iso(input.now)}`, budget], counter);
  },
  ({ input: { affect: a }, counter }) =>
    section('affect', [
      `valence ${num(a.valence)}, arousal ${num(a.arousal)}, dominance ${num(a.dominance)}, ` +
        `certainty ${num(a.certainty)}, goal congruence ${num(a.goalCongruence)}`,
    ], counter),
  ({ input, counter, line }) =>
    section('working_memory', input.workingMemory.map((m) => line(`- [${m.id}] salience ${num(m.salience)}: ${quote(m.content)}`)), counter),
  ({ input, counter, line }) =>
    section('goals', input.goals.map((g) => {
      const due = g.dueAt === undefined ? '' : `, due ${iso(g.dueAt)}`;
      const focus = g.id === input.focusGoalId ? ' (focus)' : '';
      return line(`- [${g.id}]${focus} ${quote(g.title)}: ${g.status}, priority ${g.priority}, progress ${Math.round(g.progress * 100)}%${due}`);
    }), counter),
  ({ input, counter }) => section('focus_goal', input.focusGoalId === undefined ? [] : [input.focusGoalId], counter),
];

const STATE_TAIL: ReadonlyArray<(ctx: SectionContext) => Section> = [
  ({ input, counter, cap }) => {
    const each = cap(PENDING_SHARE, input.pendingMessages.length);
    return section('pending_messages', input.pendingMessages.map(
      (m) => `- turn ${m.turnId} from ${quote(m.from)} at ${iso(m.at)}: ${quote(truncateToTokens(m.text, each, counter))}`,
    ), counter);
  },
  ({ input, counter, cap }) => {
    const each = cap(SWARM_SHARE, input.swarmResults.length);
    return section('swarm_results', input.swarmResults.map((r) => {
      const prompt = truncateToTokens(r.prompt, Math.floor(each / 4), counter);
      return `- task ${r.taskId} (turn ${r.turnId}) ${r.status}, prompt ${quote(prompt)}: ${quote(truncateToTokens(r.text, each, counter))}`;
    }), counter);
  },
  ({ input, counter, line }) => section('notices', input.notices.map((n) => line(`- ${n}`)), counter),
];

/** One conversation entry as a line of the prompt. */
function entryLine(m: ConversationMessage, text: string): string {
  if (m.role === 'user') return `- [${m.seq}] turn ${m.turnId}, ${iso(m.at)}, user ${quote(m.from ?? 'user')}: ${quote(text)}`;
  if (m.unanswered !== undefined) return `- [${m.seq}] turn ${m.turnId}, ${iso(m.at)}, ended unanswered (${m.unanswered.code}): ${quote(text)}`;
  return `- [${m.seq}] turn ${m.turnId}, ${iso(m.at)}, you replied: ${quote(text)}`;
}

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
  chargeRequired(budget, [...head, ...tail].reduce((sum, s) => sum + s.tokens, 0), args);
  // The recent conversation's frame (its tags, the note on what is left out, the state's own block once the message
  // is in blocks) is held back first: it is always sent, so no optional part may take its room.
  const blockFrame = counter.scale(BLOCK_FRAME_TOKENS);
  if (input.conversation !== undefined) {
    chargeRequired(budget, sectionFrameTokens(RECENT, counter) + counter.count(`${omittedNoteText(Number.MAX_SAFE_INTEGER, true)}\n`) + blockFrame, args);
  }

  // What is left goes to each optional part in turn, each within its share.
  const summary = fitSummary(ctx, budget);
  const recalled = input.recalledMemories === undefined ? null : fitRecalled(ctx, budget, input.recalledMemories);
  const entryMax = entryCap(args.boundTokens);
  const review = input.turnUnderReview === undefined ? null : fitReview(ctx, budget, input.turnUnderReview, entryMax);
  const recent = input.conversation === undefined ? null : fitRecent(ctx, budget, { summarized: summary !== null, blockFrame, entryMax });

  const ordered = [...head, ...(recalled === null ? [] : [recalled]), ...(review === null ? [] : [review]), ...tail];
  const rendered = ordered.map((s) => renderSection(s.name, s.lines));
  const state = [...(recent === null ? [] : [recent.tail]), ...rendered].join('\n\n');
  const sections: PromptSectionTrace[] = [
    ...(summary === null ? [] : [{ name: 'summary', tokens: summary.tokens, cached: true, text: summary.text }]),
    ...(recent === null ? [] : [{ name: RECENT, tokens: recent.tokens, ...(recent.blocks.length === 0 ? {} : { cached: true }), text: recent.blocks.join('') + recent.tail }]),
    ...ordered.map((s, i) => ({ name: s.name, tokens: s.tokens, text: rendered[i]! })),
  ];
  const blocks = recent?.blocks ?? [];
  const conversationTokens = blocks.length === 0 ? 0 : blocks.reduce((sum, block) => sum + counter.count(block) + blockFrame, blockFrame);
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

/** The rolling summary: its own block right after the cached prefix, since it changes rarely. */
function fitSummary({ input, counter, cap }: SectionContext, budget: TokenBudget): { text: string; tokens: number } | null {
  const stored = input.conversation?.summary;
  if (stored == null || stored.text.trim() === '') return null;
  const open = `<conversation_summary through_seq="${stored.throughSeq}">`;
  const close = '</conversation_summary>';
  const room = Math.min(budget.left, cap(SUMMARY_SHARE)) - counter.count(`${open}\n\n${close}`);
  const text = `${open}\n${truncateToTokens(stored.text, room, counter)}\n${close}`;
  const tokens = counter.count(text);
  return budget.take(tokens) ? { text, tokens } : null;
}

function fitRecalled({ counter, cap }: SectionContext, budget: TokenBudget, memories: NonNullable<ThinkInput['recalledMemories']>): Section {
  const name = 'recalled_memories';
  budget.charge(sectionFrameTokens(name, counter));
  const each = cap(RECALL_SHARE / 3);
  const fitted = fitLines(memories, budget.share(cap(RECALL_SHARE)), {
    newestFirst: false,
    render: (memo) => `- [${memo.id}] ${memo.source}, ${iso(memo.createdAt)}: ${quote(truncateToTokens(memo.content, each, counter))}`,
    cost: (line) => counter.count(`${line}\n`),
  });
  return section(name, fitted.lines, counter, fitted.tokens);
}

/** The turn under review: its messages and tool calls by time, the newest that fit, with a note on the rest. */
function fitReview({ counter, cap }: SectionContext, budget: TokenBudget, review: NonNullable<ThinkInput['turnUnderReview']>, entryMax: number): Section {
  const name = 'turn_under_review';
  const entries = [
    ...review.messages.map((m) => ({ at: m.at, render: (room: number) => entryLine(m, truncateToTokens(m.text, room, counter)) })),
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
  const limit = Math.min(budget.left, cap(REVIEW_SHARE)) - sectionFrameTokens(name, counter) - openingTokens - counter.count(`${omittedNote(entries.length)}\n`);
  const cost = (line: string) => counter.count(`${line}\n`);
  const fitted = fitLines(entries, budget.share(limit), { newestFirst: true, render: (e) => e.render(entryMax), cost });
  const notes = fitted.omitted > 0 ? [omittedNote(fitted.omitted)] : [];
  const always = openingTokens + notes.reduce((sum, n) => sum + cost(n), 0);
  const built = section(name, [opening, ...notes, ...fitted.lines], counter, always + fitted.tokens);
  // The opening and the note are always sent; the entries were taken as they were fitted.
  budget.charge(built.tokens - fitted.tokens);
  return built;
}

const RECENT = 'recent_conversation';

/** The recent conversation as sent, and its tokens (its blocks' framing included). */
interface RecentConversation {
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
function fitRecent(
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
  const tokens = sectionFrameTokens(RECENT, counter) + fitted.tokens + (omitted === null ? 0 : counter.count(`${omitted}\n`));
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

function omittedNoteText(n: number, summarized: boolean): string {
  return `(${n} older entries are not shown${summarized ? '; the conversation summary covers what came before them' : ''})`;
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

function renderSection(name: string, lines: readonly string[]): string {
  return `<${name}>\n${lines.length === 0 ? '(none)' : lines.join('\n')}\n</${name}>`;
}
