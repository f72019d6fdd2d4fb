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
import type { TokenCalibration } from './token-calibration.js';

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
const BLOCK_FRAME_TOKENS = counterFreeTokens('{"type":"text","text":""},');
/** No line of state (a goal title, a memory, a notice) is sent longer than this. */
const LINE_CAP_TOKENS = 400;
/** The least an oversized message is cut to, so a crowded turn still shows the start of each message. */
const MIN_ITEM_TOKENS = 48;
/** An entry line's frame: seq, turn id, time, sender, quotes. */
const ENTRY_FRAME_TOKENS = 60;

function counterFreeTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 3);
}

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

/** A section being built: its lines and their tokens. */
class Section {
  readonly lines: string[] = [];
  tokens: number;

  constructor(
    readonly name: string,
    private readonly counter: TokenCalibration,
  ) {
    // The tags, the newlines and a possible `(none)`.
    this.tokens = counter.count(`<${name}>\n(none)\n</${name}>\n\n`);
  }

  /** Adds a line if it fits in `room` more tokens (all lines fit when `room` is undefined); true when added. */
  add(line: string, room?: number): boolean {
    const tokens = this.counter.count(`${line}\n`);
    if (room !== undefined && tokens > room) return false;
    this.lines.push(line);
    this.tokens += tokens;
    return true;
  }

  render(): string {
    return renderSection(this.name, this.lines);
  }
}

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
  const cap = (share: number, items = 1) => Math.max(MIN_ITEM_TOKENS, Math.floor((available * share) / Math.max(1, items)));
  const line = (text: string) => truncateToTokens(text, LINE_CAP_TOKENS, counter);
  const section = (name: string) => new Section(name, counter);

  const a = input.affect;
  const b = input.budget;
  const heartbeat = section('heartbeat');
  heartbeat.add(`reason: ${input.reason}`);
  heartbeat.add(`turn: ${input.turnId}`);
  heartbeat.add(`now: ${iso(input.now)}`);
  heartbeat.add(
    b === undefined
      ? 'budget: no daily cap applies'
      : `budget: $${b.spentTodayUsd.toFixed(2)} of $${b.dailyCapUsd.toFixed(2)} spent today (${b.pct.toFixed(1)}%)`,
  );
  const affect = section('affect');
  affect.add(
    `valence ${num(a.valence)}, arousal ${num(a.arousal)}, dominance ${num(a.dominance)}, ` +
      `certainty ${num(a.certainty)}, goal congruence ${num(a.goalCongruence)}`,
  );
  const memory = section('working_memory');
  for (const m of input.workingMemory) memory.add(line(`- [${m.id}] salience ${num(m.salience)}: ${quote(m.content)}`));
  const goals = section('goals');
  for (const g of input.goals) {
    const due = g.dueAt === undefined ? '' : `, due ${iso(g.dueAt)}`;
    const focus = g.id === input.focusGoalId ? ' (focus)' : '';
    goals.add(line(`- [${g.id}]${focus} ${quote(g.title)}: ${g.status}, priority ${g.priority}, progress ${Math.round(g.progress * 100)}%${due}`));
  }
  const focusGoal = section('focus_goal');
  if (input.focusGoalId !== undefined) focusGoal.add(input.focusGoalId);
  const pending = section('pending_messages');
  const pendingCap = cap(PENDING_SHARE, input.pendingMessages.length);
  for (const m of input.pendingMessages) {
    pending.add(`- turn ${m.turnId} from ${quote(m.from)} at ${iso(m.at)}: ${quote(truncateToTokens(m.text, pendingCap, counter))}`);
  }
  const swarm = section('swarm_results');
  const swarmCap = cap(SWARM_SHARE, input.swarmResults.length);
  for (const r of input.swarmResults) {
    const prompt = truncateToTokens(r.prompt, Math.floor(swarmCap / 4), counter);
    swarm.add(`- task ${r.taskId} (turn ${r.turnId}) ${r.status}, prompt ${quote(prompt)}: ${quote(truncateToTokens(r.text, swarmCap, counter))}`);
  }
  const notices = section('notices');
  for (const n of input.notices) notices.add(line(`- ${n}`));

  const required = [heartbeat, affect, memory, goals, focusGoal, pending, swarm, notices];
  let left = available - required.reduce((sum, s) => sum + s.tokens, 0);
  if (left < 0) throw unfittable(args, available - left);

  // The recent conversation's frame (its tags, the note on what is left out, the state's own block once the message
  // is in blocks) is held back first: it is always sent, so no optional part may take its room.
  const recent = input.conversation === undefined ? null : section('recent_conversation');
  const blockFrame = counter.scale(BLOCK_FRAME_TOKENS);
  const recentFrame = recent === null ? 0 : recent.tokens + counter.count(`${omittedNoteText(Number.MAX_SAFE_INTEGER, true)}\n`) + blockFrame;
  left -= recentFrame;
  if (left < 0) throw unfittable(args, available - left);

  // The summary: its own block right after the cached prefix, since it changes rarely.
  let summary: string | null = null;
  let summaryTokens = 0;
  const stored = input.conversation?.summary;
  if (stored != null && stored.text.trim() !== '') {
    const room = Math.min(left, cap(SUMMARY_SHARE));
    const text = `<conversation_summary through_seq="${stored.throughSeq}">\n${truncateToTokens(stored.text, room - counter.count(`<conversation_summary through_seq="${stored.throughSeq}">\n\n</conversation_summary>`), counter)}\n</conversation_summary>`;
    summaryTokens = counter.count(text);
    if (summaryTokens <= left) {
      summary = text;
      left -= summaryTokens;
    } else {
      summaryTokens = 0;
    }
  }

  const recalled = input.recalledMemories === undefined ? null : section('recalled_memories');
  if (recalled !== null) {
    left -= recalled.tokens;
    let room = Math.min(Math.max(0, left), cap(RECALL_SHARE));
    for (const memo of input.recalledMemories ?? []) {
      const text = truncateToTokens(memo.content, cap(RECALL_SHARE / 3), counter);
      const before = recalled.tokens;
      if (!recalled.add(`- [${memo.id}] ${memo.source}, ${iso(memo.createdAt)}: ${quote(text)}`, room)) break;
      room -= recalled.tokens - before;
      left -= recalled.tokens - before;
    }
  }

  const review = input.turnUnderReview;
  const reviewSection = review === undefined ? null : section('turn_under_review');
  if (reviewSection !== null && review !== undefined) {
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
    reviewSection.add(`turn from ${iso(review.startedAt)} to ${iso(review.endedAt)}`);
    const omittedNote = (n: number) => `(${n} earlier entries of this turn left out for room)`;
    const room = Math.min(left, cap(REVIEW_SHARE)) - reviewSection.tokens - counter.count(`${omittedNote(entries.length)}\n`);
    const kept = fitNewestFirst(entries, Math.max(0, room), entryCap(args.boundTokens), counter);
    if (kept.omitted > 0) reviewSection.add(omittedNote(kept.omitted));
    for (const text of kept.lines) reviewSection.add(text);
    left -= reviewSection.tokens;
  }

  // The recent conversation: what the turn's own messages and the review do not already show, newest first.
  const answering = new Set(input.pendingMessages.map((m) => m.turnId));
  const reviewed = new Set((review?.messages ?? []).map((m) => m.seq));
  const candidates = (input.conversation?.recent ?? []).filter(
    (m) => !reviewed.has(m.seq) && !(m.role === 'user' && answering.has(m.turnId)),
  );
  // Newest first while they fit; each its own block, so each pays a block's framing too.
  const shownNewestFirst: string[] = [];
  let omitted: string | null = null;
  if (recent !== null) {
    const omittedNote = (n: number) => omittedNoteText(n, summary !== null);
    const entryMax = entryCap(args.boundTokens);
    for (let i = candidates.length - 1; i >= 0; i--) {
      const m = candidates[i]!;
      const before = recent.tokens;
      // The line around the text (seq, turn, time, sender) takes under ENTRY_FRAME_TOKENS.
      const textRoom = Math.min(entryMax, left - ENTRY_FRAME_TOKENS - blockFrame);
      if (textRoom < MIN_ITEM_TOKENS) break;
      const text = entryLine(m, truncateToTokens(m.text, textRoom, counter));
      if (!recent.add(text, Math.max(0, left - blockFrame))) break;
      recent.tokens += blockFrame;
      left -= recent.tokens - before;
      shownNewestFirst.push(text);
    }
    // Said in words, so the model knows older turns exist beyond what it sees.
    if (shownNewestFirst.length < candidates.length) {
      omitted = omittedNote(candidates.length - shownNewestFirst.length);
      recent.tokens += counter.count(`${omitted}\n`);
    }
  }
  const recentShown = shownNewestFirst.length;
  const recentOmitted = candidates.length - recentShown;
  const { blocks: conversation, tail: recentTail } = conversationParts(shownNewestFirst.reverse(), omitted);

  const optional = (s: Section | null): Section[] => (s === null ? [] : [s]);
  const ordered = [heartbeat, affect, memory, goals, focusGoal, ...optional(recalled), ...optional(reviewSection), pending, swarm, notices];
  const state = [...(recent === null ? [] : [recentTail]), ...ordered.map((s) => s.render())].join('\n\n');
  const sections: PromptSectionTrace[] = [
    ...(summary === null ? [] : [{ name: 'summary', tokens: summaryTokens, cached: true, text: summary }]),
    ...(recent === null ? [] : [{ name: recent.name, tokens: recent.tokens, ...(conversation.length === 0 ? {} : { cached: true }), text: conversation.join('') + recentTail }]),
    ...ordered.map((s) => ({ name: s.name, tokens: s.tokens, text: s.render() })),
  ];
  const conversationTokens = conversation.length === 0 ? 0 : conversation.reduce((sum, block) => sum + counter.count(block) + blockFrame, blockFrame);
  return { summary, conversation, state, sections, tokens: summaryTokens + conversationTokens + counter.count(state), recentShown, recentOmitted };
}

/**
 * The recent conversation's blocks (one an entry, oldest first, the first opening the section) and the section's
 * end, which goes in the state since no later think shares it: with nothing shown, the whole section.
 */
function conversationParts(entries: readonly string[], omitted: string | null): { blocks: string[]; tail: string } {
  const notes = omitted === null ? [] : [omitted];
  if (entries.length === 0) return { blocks: [], tail: renderSection('recent_conversation', notes) };
  const blocks = entries.map((text, i) => `${i === 0 ? '<recent_conversation>\n' : ''}${text}\n`);
  return { blocks, tail: [...notes, '</recent_conversation>'].join('\n') };
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

/** Entries (oldest first) kept newest first within `room` tokens, each cut to `entryCap`; returned oldest first. */
function fitNewestFirst(
  entries: ReadonlyArray<{ render: (room: number) => string }>,
  room: number,
  entryCap: number,
  counter: TokenCalibration,
): { lines: string[]; omitted: number } {
  const lines: string[] = [];
  let left = room;
  for (let i = entries.length - 1; i >= 0; i--) {
    const text = entries[i]!.render(entryCap);
    const tokens = counter.count(`${text}\n`);
    if (tokens > left) break;
    lines.push(text);
    left -= tokens;
  }
  return { lines: lines.reverse(), omitted: entries.length - lines.length };
}
