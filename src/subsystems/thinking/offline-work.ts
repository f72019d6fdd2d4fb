/** The offline thinker's autonomous work: a step on a goal, digesting swarm results, and the debrief note. */
import { round3 } from './offline-appraisal.js';
import type { OfflineContext } from './offline-replies.js';
import { excerpt, percent } from './offline-text.js';
import type { SwarmResult, ThinkAction, ThinkInput } from './thinker.schema.js';

/** How much of a goal one offline work step completes. */
export const GOAL_STEP = 0.1;

/** One step on the focus goal: progress of GOAL_STEP (or what remains, which completes it), a note, and a small lift. */
export function workOnGoal(ctx: OfflineContext): ThinkAction[] {
  const goal = ctx.focusGoal;
  if (goal === undefined) return [];
  const remaining = round3(1 - goal.progress);
  if (remaining <= 0) {
    // Already at 100% but still active: close it rather than push progress past the end.
    return [
      { type: 'goal_complete', goalId: goal.id },
      { type: 'remember', content: `Closed "${goal.title}": it was already fully done.`, salience: 0.5 },
    ];
  }
  const delta = remaining <= GOAL_STEP ? remaining : GOAL_STEP;
  const after = round3(goal.progress + delta);
  const finished = after >= 1;
  const wrap = ctx.windingDown ? ' Wrapping up for today.' : '';
  const note = finished
    ? `Finished "${goal.title}".${wrap}`
    : `Worked on "${goal.title}": progress ${percent(goal.progress)} → ${percent(after)}.${wrap}`;
  return [
    { type: 'goal_progress', goalId: goal.id, delta },
    { type: 'remember', content: note, salience: finished ? 0.6 : 0.4 },
    finished
      ? { type: 'feel', delta: { goalCongruence: 0.3, valence: 0.2, arousal: 0.1 }, intensity: 0.8 }
      : { type: 'feel', delta: { goalCongruence: 0.1, valence: 0.05 }, intensity: 0.5 },
  ];
}

/** Remembers one swarm result, tells the turn that asked for it, and feels a little surer (or let down if it failed). */
export function digestSwarmResult(result: SwarmResult): ThinkAction[] {
  const topic = excerpt(result.prompt, 60);
  if (result.status === 'cancelled') {
    return [
      { type: 'remember', content: `Task on "${topic}" was cancelled: ${excerpt(result.text, 160)}`, salience: 0.5 },
      {
        type: 'reply',
        turnId: result.turnId,
        text: `The task on "${topic}" was cancelled: ${excerpt(result.text, 200)}`,
      },
    ];
  }
  if (result.status === 'failed') {
    return [
      { type: 'remember', content: `Task on "${topic}" failed: ${excerpt(result.text, 160)}`, salience: 0.6 },
      {
        type: 'reply',
        turnId: result.turnId,
        text: `I couldn't finish looking into "${topic}": ${excerpt(result.text, 200)}`,
      },
      { type: 'feel', delta: { valence: -0.1, certainty: -0.05 }, intensity: 0.4 },
    ];
  }
  return [
    { type: 'remember', content: `Finding on "${topic}": ${excerpt(result.text, 200)}`, salience: 0.6 },
    { type: 'reply', turnId: result.turnId, text: `Here is what I found on "${topic}": ${excerpt(result.text, 400)}` },
    { type: 'feel', delta: { certainty: 0.1, valence: 0.05 }, intensity: 0.4 },
  ];
}

/** The debrief: one note (salience 0.7) of what the agent was doing, from its focus goal and newest memories; no reply. */
export function debrief(input: ThinkInput, ctx: OfflineContext): ThinkAction[] {
  const goal = ctx.focusGoal;
  const doing = goal === undefined ? 'no goal in focus' : `"${goal.title}" at ${percent(goal.progress)}`;
  const active = input.goals.filter((g) => g.status === 'active').length;
  // Newest first; ties broken by id so the note never depends on the array's order alone.
  const recent = [...input.workingMemory]
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, 2)
    .map((m) => `"${excerpt(m.content, 60)}"`);
  const memories = recent.length === 0 ? 'nothing in working memory' : `recent: ${recent.join('; ')}`;
  const content = `Debrief: I was working on ${doing}, with ${active} active goal${active === 1 ? '' : 's'}; ${memories}.${reviewed(input)}`;
  return [{ type: 'remember', content, salience: 0.7 }];
}

/** What the debrief's turn held, in one clause: its messages, replies and tool calls ('' when none was given). */
function reviewed(input: ThinkInput): string {
  const turn = input.turnUnderReview;
  if (turn === undefined) return '';
  const asked = turn.messages.filter((m) => m.role === 'user').length;
  const answered = turn.messages.length - asked;
  const names = [...new Set(turn.toolCalls.map((c) => c.name))];
  const calls =
    turn.toolCalls.length === 0
      ? 'no tool calls'
      : `${turn.toolCalls.length} tool call${turn.toolCalls.length === 1 ? '' : 's'} (${names.join(', ')})`;
  return ` The turn had ${asked} message${asked === 1 ? '' : 's'}, ${answered} repl${answered === 1 ? 'y' : 'ies'} and ${calls}.`;
}
