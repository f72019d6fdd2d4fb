/** The state message's sections as the prompt-budget builder renders them, and the always-shown ones among them. */
import type { ConversationMessage } from '../../protocol/conversation.schema.js';
import type { ThinkInput } from './thinker.schema.js';
import type { TokenCalibration } from './token-calibration.js';
import { truncateToTokens } from './token-truncate.js';

// Shares of the room left after the fixed parts. The turn's own messages come first; the conversation fills the rest.
const PENDING_SHARE = 0.5;
const SWARM_SHARE = 0.2;
/** No line of state (a goal title, a memory, a notice) is sent longer than this. */
export const LINE_CAP_TOKENS = 400;
/** The least an oversized message is cut to, so a crowded turn still shows the start of each message. */
export const MIN_ITEM_TOKENS = 48;

/** A time as the prompt shows it. */
export const iso = (ms: number) => new Date(ms).toISOString();
const num = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));
/** Text as the prompt quotes it: a JSON string. */
export const quote = (text: string) => JSON.stringify(text);

/** A section as sent: its lines and its tokens (the tags, the newlines and a possible `(none)` included). */
export interface Section {
  readonly name: string;
  readonly lines: readonly string[];
  readonly tokens: number;
}

/** What every section is made from. */
export interface SectionContext {
  input: ThinkInput;
  counter: TokenCalibration;
  /** Tokens for one of `items` sharing `share` of the room left after the fixed parts. */
  cap: (share: number, items?: number) => number;
  /** A line of state within LINE_CAP_TOKENS. */
  line: (text: string) => string;
}

/** A section of `lines`, with its tokens (`linesTokens` when the lines were already counted). */
export function section(
  name: string,
  lines: readonly string[],
  counter: TokenCalibration,
  linesTokens?: number,
): Section {
  const tokens = linesTokens ?? lines.reduce((sum, l) => sum + counter.count(`${l}\n`), 0);
  return { name, lines, tokens: sectionFrameTokens(name, counter) + tokens };
}

/** What a section's tags take, with `(none)` and the blank line after it. */
export function sectionFrameTokens(name: string, counter: TokenCalibration): number {
  return counter.count(`<${name}>\n(none)\n</${name}>\n\n`);
}

// The state's own sections, always shown whole (each oversized item cut), in the order sent: the recalled memories
// and the turn under review go between the two.
export const STATE_HEAD: ReadonlyArray<(ctx: SectionContext) => Section> = [
  ({ input, counter }) => {
    const b = input.budget;
    const budget =
      b === undefined
        ? 'budget: no daily cap applies'
        : `budget: $${b.spentTodayUsd.toFixed(2)} of $${b.dailyCapUsd.toFixed(2)} spent today (${b.pct.toFixed(1)}%)`;
    return section(
      'heartbeat',
      [`reason: ${input.reason}`, `turn: ${input.turnId}`, `now: ${iso(input.now)}`, budget],
      counter,
    );
  },
  ({ input: { affect: a }, counter }) =>
    section(
      'affect',
      [
        `valence ${num(a.valence)}, arousal ${num(a.arousal)}, dominance ${num(a.dominance)}, ` +
          `certainty ${num(a.certainty)}, goal congruence ${num(a.goalCongruence)}`,
      ],
      counter,
    ),
  ({ input, counter, line }) =>
    section(
      'working_memory',
      input.workingMemory.map((m) => line(`- [${m.id}] salience ${num(m.salience)}: ${quote(m.content)}`)),
      counter,
    ),
  ({ input, counter, line }) =>
    section(
      'goals',
      input.goals.map((g) => {
        const due = g.dueAt === undefined ? '' : `, due ${iso(g.dueAt)}`;
        const focus = g.id === input.focusGoalId ? ' (focus)' : '';
        return line(
          `- [${g.id}]${focus} ${quote(g.title)}: ${g.status}, priority ${g.priority}, progress ${Math.round(g.progress * 100)}%${due}`,
        );
      }),
      counter,
    ),
  ({ input, counter }) => section('focus_goal', input.focusGoalId === undefined ? [] : [input.focusGoalId], counter),
];

/** The state's sections after the recalled memories and the turn under review. */
export const STATE_TAIL: ReadonlyArray<(ctx: SectionContext) => Section> = [
  ({ input, counter, cap }) => {
    const each = cap(PENDING_SHARE, input.pendingMessages.length);
    return section(
      'pending_messages',
      input.pendingMessages.map(
        (m) =>
          `- turn ${m.turnId} from ${quote(m.from)} at ${iso(m.at)}: ${quote(truncateToTokens(m.text, each, counter))}`,
      ),
      counter,
    );
  },
  ({ input, counter, cap }) => {
    const each = cap(SWARM_SHARE, input.swarmResults.length);
    return section(
      'swarm_results',
      input.swarmResults.map((r) => {
        const prompt = truncateToTokens(r.prompt, Math.floor(each / 4), counter);
        return `- task ${r.taskId} (turn ${r.turnId}) ${r.status}, prompt ${quote(prompt)}: ${quote(truncateToTokens(r.text, each, counter))}`;
      }),
      counter,
    );
  },
  ({ input, counter, line }) =>
    section(
      'notices',
      input.notices.map((n) => line(`- ${n}`)),
      counter,
    ),
];

/** One conversation entry as a line of the prompt. */
export function entryLine(m: ConversationMessage, text: string): string {
  if (m.role === 'user')
    return `- [${m.seq}] turn ${m.turnId}, ${iso(m.at)}, user ${quote(m.from ?? 'user')}: ${quote(text)}`;
  if (m.unanswered !== undefined)
    return `- [${m.seq}] turn ${m.turnId}, ${iso(m.at)}, ended unanswered (${m.unanswered.code}): ${quote(text)}`;
  return `- [${m.seq}] turn ${m.turnId}, ${iso(m.at)}, you replied: ${quote(text)}`;
}

/** A section as sent: its lines between its tags, or `(none)`. */
export function renderSection(name: string, lines: readonly string[]): string {
  return `<${name}>\n${lines.length === 0 ? '(none)' : lines.join('\n')}\n</${name}>`;
}
