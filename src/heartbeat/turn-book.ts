/**
 * The turns' one home, pure: which user turns are open, how many thinks carried each without answering it, and how
 * many replies are unread. A turn opens when its message is accepted (already synced in the conversation log) and is
 * closed exactly once, by a reply or an unanswered ending; the ending itself is written by the `TurnCloser`.
 */
import type { PendingMessage } from '../protocol/conversation.schema.js';
import { NO_APPROVAL_WAITS } from '../subsystems/tools/approval-waits.js';
import type { TurnState } from './heartbeat.types.js';
import { onUserMessage } from './turn-tracker.js';

/** Thinks that may carry a turn without answering it before it ends as NO_ANSWER. */
export const MAX_UNANSWERED_THINKS = 3;

/** At most this many open turns go into one think (oldest first); the rest wait for the next. */
export const MAX_TURNS_PER_THINK = 8;

/** A new user message: its turn opens (once: a replayed message is not opened twice). */
export function openTurn(turns: TurnState, message: PendingMessage): TurnState {
  if (turns.pending.some((open) => open.turnId === message.turnId)) return turns;
  return { ...turns, ...onUserMessage(turns, message.at), pending: [...turns.pending, message], unreadReplies: 0 };
}

/**
 * Open turns a user-message think should take up: all but those waiting for a sub-agent task's result, and those in
 * `waitingForApproval` (a tool call of theirs waits for an operator's decision).
 */
export function answerableTurns(
  turns: TurnState,
  waitingForApproval: ReadonlySet<string> = NO_APPROVAL_WAITS,
): TurnState['pending'] {
  if (waitingForApproval.size === 0) return turns.pending.filter((open) => open.awaitingTask !== true);
  return turns.pending.filter((open) => open.awaitingTask !== true && !waitingForApproval.has(open.turnId));
}

/** The open turns the next user-message think answers. */
export function turnsForThink(turns: TurnState, waitingForApproval: ReadonlySet<string> = NO_APPROVAL_WAITS): string[] {
  return answerableTurns(turns, waitingForApproval)
    .slice(0, MAX_TURNS_PER_THINK)
    .map((open) => open.turnId);
}

/** The open turns whose answer waits on one of these finished tasks (they ride along with the results' think). */
export function turnsAwaitingResults(turns: TurnState, resultTurnIds: readonly string[]): string[] {
  return turns.pending
    .filter((open) => open.awaitingTask === true && resultTurnIds.includes(open.turnId))
    .map((open) => open.turnId);
}

/** A think handed these turns' answers to sub-agent tasks: they wait for the results instead of counting as missed. */
export function awaitTasks(turns: TurnState, turnIds: readonly string[]): TurnState {
  if (turnIds.length === 0) return turns;
  return {
    ...turns,
    pending: turns.pending.map((open) => (turnIds.includes(open.turnId) ? { ...open, awaitingTask: true } : open)),
  };
}

/** True while `turnId` is open. */
export function isOpen(turns: TurnState, turnId: string): boolean {
  return turns.pending.some((open) => open.turnId === turnId);
}

/** Turns that ended: closed, each counted as a reply or not. Unknown or already closed ids change nothing. */
export function closeTurns(turns: TurnState, ended: readonly { turnId: string; replied: boolean }[]): TurnState {
  const closing = new Map(ended.filter((e) => isOpen(turns, e.turnId)).map((e) => [e.turnId, e.replied]));
  if (closing.size === 0) return turns;
  const replies = [...closing.values()].filter(Boolean).length;
  return {
    ...turns,
    pending: turns.pending.filter((open) => !closing.has(open.turnId)),
    unreadReplies: turns.unreadReplies + replies,
  };
}

/**
 * A think that completed carried `carried` but did not answer those still open: each counts one more unanswered think.
 * Returns the new state and the turns that have now had their last try (the caller ends them as NO_ANSWER).
 */
export function countUnanswered(
  turns: TurnState,
  carried: readonly string[],
): { turns: TurnState; exhausted: string[] } {
  const missed = new Set(carried.filter((turnId) => isOpen(turns, turnId)));
  if (missed.size === 0) return { turns, exhausted: [] };
  const exhausted: string[] = [];
  const pending = turns.pending.map((open) => {
    if (!missed.has(open.turnId)) return open;
    const attempts = (open.attempts ?? 0) + 1;
    if (attempts >= MAX_UNANSWERED_THINKS) exhausted.push(open.turnId);
    // Seen with its task's results and still unanswered: it goes back to the ordinary queue.
    const { awaitingTask: _done, ...rest } = open;
    return { ...rest, attempts };
  });
  return { turns: { ...turns, pending }, exhausted };
}
