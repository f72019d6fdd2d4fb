/** How the offline thinker answers a user message: spot a simple intent, reply, and note and feel the exchange. */
import type { Goal } from '../../actors/goals/goals.schema.js';
import { appraiseText, describeMood } from './offline-appraisal.js';
import { excerpt, percent, subjectOf } from './offline-text.js';
import type { PendingMessage, ThinkAction, ThinkInput } from './thinker.schema.js';

/** What a message asks for, as far as a few patterns can tell. */
export type MessageIntent =
  { kind: 'remember' | 'goal' | 'research'; subject: string } | { kind: 'greeting' | 'question' | 'reflect' };

/** What the offline thinker knows while it answers: the focus goal, its mood, its memory, and whether it is winding down. */
export interface OfflineContext {
  focusGoal: Goal | undefined;
  mood: string;
  memoryCount: number;
  windingDown: boolean;
  /** The long-term memory recalled for this think that matches best, if any. */
  recalled: string | undefined;
}

// An optional greeting, name and politeness before a command: "hi Vigil, could you please research X".
const LEAD = String.raw`^(?:(?:hi|hello|hey)\b[\s,!]*)?(?:vigil\b[\s,:]*)?(?:(?:can|could|would|will) you\s+)?(?:please\s+)?`;
const COMMANDS: readonly ['remember' | 'goal' | 'research', RegExp][] = [
  ['remember', new RegExp(`${LEAD}remember(?:\\s+that)?[\\s:,]+(.+)$`, 'i')],
  ['goal', new RegExp(`${LEAD}(?:goal:|add (?:a |the )?(?:new )?goal\\b[\\s:,]*(?:to\\s+)?)\\s*(.+)$`, 'i')],
  ['research', new RegExp(`${LEAD}(?:research|look into|investigate)\\s+(.+)$`, 'i')],
];
const GREETING = /^(?:hi|hello|hey|howdy|greetings|good (?:morning|afternoon|evening))\b/i;
const QUESTION_START =
  /^(?:what|how|why|who|when|where|which|can|could|do|does|did|is|are|will|would|should|have|has)\b/i;
/** Notices that mean "finish up, start nothing new" (the budget's wind-down). */
const WIND_DOWN = /wind(?:ing)?[\s-]?down|wrap(?:ping)?[\s-]?up/i;

/** The intent of `text`: a command (remember / goal / research) first, then a question, a greeting, or else reflection. */
export function classifyMessage(text: string): MessageIntent {
  const flat = text.replace(/\s+/g, ' ').trim();
  for (const [kind, pattern] of COMMANDS) {
    const subject = subjectOf(pattern.exec(flat)?.[1] ?? '');
    if (subject !== '') return { kind, subject };
  }
  if (flat.includes('?') || QUESTION_START.test(flat)) return { kind: 'question' };
  if (GREETING.test(flat)) return { kind: 'greeting' };
  return { kind: 'reflect' };
}

/** The goal to talk about or work on: `focusGoalId` if it names an active goal, else the highest-priority active one (earliest due first on ties). */
export function pickFocusGoal(input: Pick<ThinkInput, 'goals' | 'focusGoalId'>): Goal | undefined {
  const active = input.goals.filter((g) => g.status === 'active');
  const named = active.find((g) => g.id === input.focusGoalId);
  if (named !== undefined) return named;
  // Stable: ties keep the goals' own order, so the choice is deterministic.
  return [...active].sort((a, b) => b.priority - a.priority || (a.dueAt ?? Infinity) - (b.dueAt ?? Infinity))[0];
}

/** The context the offline thinker answers in. */
export function offlineContext(input: ThinkInput): OfflineContext {
  return {
    focusGoal: pickFocusGoal(input),
    mood: describeMood(input.affect),
    memoryCount: input.workingMemory.length,
    windingDown: input.notices.some((n) => WIND_DOWN.test(n)),
    recalled: input.recalledMemories?.[0]?.content,
  };
}

function focusLine(ctx: OfflineContext): string {
  const goal = ctx.focusGoal;
  return goal === undefined
    ? 'I have no active goals right now.'
    : `I'm working on "${goal.title}" (${percent(goal.progress)} done).`;
}

const items = (n: number): string => `${n} item${n === 1 ? '' : 's'}`;

/** The reply text and the commands' own actions for one intent, plus a short account for the memory note. */
function respond(
  intent: MessageIntent,
  msg: PendingMessage,
  ctx: OfflineContext,
  valence: number,
): { text: string; did: string; extra: ThinkAction[] } {
  const wrapUp = "I'm winding down for today, so I won't start";
  switch (intent.kind) {
    case 'remember':
      return {
        text: `Noted. I'll remember: ${intent.subject}.`,
        did: 'agreed to remember it',
        extra: [{ type: 'remember', content: intent.subject, salience: 0.8, keep: true }],
      };
    case 'goal':
      if (ctx.windingDown)
        return {
          text: `${wrapUp} a new goal "${intent.subject}" now; ask me again after the budget resets.`,
          did: 'declined a new goal while winding down',
          extra: [],
        };
      return {
        text: `Added a goal: "${intent.subject}".`,
        did: 'added it as a goal',
        extra: [{ type: 'goal_add', title: intent.subject }],
      };
    case 'research':
      if (ctx.windingDown)
        return {
          text: `${wrapUp} researching "${intent.subject}" now; ask me again after the budget resets.`,
          did: 'declined research while winding down',
          extra: [],
        };
      return {
        text: `I'll look into "${intent.subject}" and report back.`,
        did: 'started research on it',
        extra: [{ type: 'spawn_task', prompt: `Research: ${intent.subject}` }],
      };
    case 'greeting':
      return {
        text: `Hello ${msg.from}! I'm feeling ${ctx.mood}. ${focusLine(ctx)}`,
        did: 'greeted them back',
        extra: [],
      };
    case 'question':
      return {
        text:
          `You asked: "${excerpt(msg.text)}". Here is what I know: ${focusLine(ctx)} I feel ${ctx.mood}, and I hold ${items(ctx.memoryCount)} in working memory.` +
          (ctx.recalled === undefined ? '' : ` I also recall: "${excerpt(ctx.recalled, 160)}".`),
        did: 'answered with my focus, mood and memory',
        extra: [],
      };
    case 'reflect': {
      if (msg.text.trim() === '')
        return {
          text: 'You sent an empty message; did you mean to write something?',
          did: 'asked what they meant',
          extra: [],
        };
      const tone = valence > 0 ? " That's good to hear." : valence < 0 ? ' That sounds difficult.' : '';
      return {
        text: `You said: "${excerpt(msg.text)}".${tone} I'll keep that in mind.`,
        did: 'reflected on it',
        extra: [],
      };
    }
  }
}

/** Every action answering `msg`: the reply, the command's own action if any, a note of the exchange, and a feeling about it. */
export function answerMessage(msg: PendingMessage, ctx: OfflineContext): ThinkAction[] {
  const intent = classifyMessage(msg.text);
  const appraisal = appraiseText(msg.text);
  const { text, did, extra } = respond(intent, msg, ctx, appraisal.delta.valence ?? 0);
  return [
    { type: 'reply', turnId: msg.turnId, text },
    ...extra,
    { type: 'remember', content: `${msg.from} said "${excerpt(msg.text, 80)}"; I ${did}.`, salience: 0.5 },
    { type: 'feel', delta: appraisal.delta, intensity: appraisal.intensity },
  ];
}
