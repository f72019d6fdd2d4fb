/**
 * Turns and debriefs (seed 004), pure. A turn runs from the first think after idleness to the beat that leaves no
 * work; its start is the user's message for a user turn, else the first think. At a turn's end, if
 * `now − max(turnStartedAt, lastDebriefAt) ≥ debriefAfter`, the next think is a debrief. Only a real user message
 * clears `lastDebriefAt`; a debrief is never user input.
 */

/** The timers, all epoch ms. */
export interface TurnTimers {
  lastMessageAt: number | null;
  lastDebriefAt: number | null;
  turnStartedAt: number | null;
  turnInProgress: boolean;
  /** A debrief is owed for the next think. */
  debriefDue: boolean;
  /** Not before this time (the 5 s grace after a restart that cut a turn short). */
  debriefNotBefore: number | null;
}

/** Delay before the debrief owed after a restart that cut a turn short. */
export const RESTART_DEBRIEF_DELAY_MS = 5_000;

/** No turn yet. */
export const IDLE_TIMERS: TurnTimers = {
  lastMessageAt: null,
  lastDebriefAt: null,
  turnStartedAt: null,
  turnInProgress: false,
  debriefDue: false,
  debriefNotBefore: null,
};

/** A real user message: the next turn starts fresh, so an earlier debrief no longer counts. */
export function onUserMessage(timers: TurnTimers, at: number): TurnTimers {
  return { ...timers, lastMessageAt: at, lastDebriefAt: null };
}

/** A think is about to run; the first one after idleness begins a turn at `startedAt`. */
export function beginThink(timers: TurnTimers, startedAt: number): TurnTimers {
  if (timers.turnInProgress) return timers;
  return { ...timers, turnInProgress: true, turnStartedAt: startedAt };
}

/** The debrief think begins now: it is itself a turn, timed from its injection. */
export function injectDebrief(timers: TurnTimers, now: number): TurnTimers {
  return {
    ...timers,
    lastDebriefAt: now,
    debriefDue: false,
    debriefNotBefore: null,
    turnInProgress: true,
    turnStartedAt: now,
  };
}

/** The turn is over (no work left): owe a debrief if it ran at least `debriefAfterMs`. */
export function endTurn(timers: TurnTimers, now: number, debriefAfterMs: number): TurnTimers {
  if (!timers.turnInProgress) return timers;
  const started = Math.max(timers.turnStartedAt ?? now, timers.lastDebriefAt ?? Number.NEGATIVE_INFINITY);
  return { ...timers, turnInProgress: false, debriefDue: timers.debriefDue || now - started >= debriefAfterMs };
}

/** After a restart: a turn that was running was cut short, so one debrief is owed 5 s from now, unconditionally. */
export function afterRestart(timers: TurnTimers, now: number): TurnTimers {
  if (!timers.turnInProgress) return timers;
  return { ...timers, turnInProgress: false, debriefDue: true, debriefNotBefore: now + RESTART_DEBRIEF_DELAY_MS };
}

/** True when the owed debrief may run now. */
export function debriefReady(timers: TurnTimers, now: number): boolean {
  return timers.debriefDue && (timers.debriefNotBefore === null || now >= timers.debriefNotBefore);
}

/** The prompt of a debrief think: check the work, keep what matters. */
export const DEBRIEF_PROMPT =
  'Debrief: the turn you just finished ran a while. Validate the work you did (is it complete and correct?), then ' +
  'capture what matters: remember decisions and facts worth keeping, and add or update goals for anything left open. ' +
  'Do not reply to the user unless something needs their attention.';

/** The notice that tells the agent, once, to wrap up before the budget puts it to sleep. */
export const WIND_DOWN_NOTICE =
  "Budget notice: today's budget is nearly spent. Wind down: finish the current step, answer what is pending, " +
  'record where you are in memory, and start nothing new. You will sleep after this turn.';

/** The notice on work taken up again after a user message interrupted it (seed 002's "yield, answer, resume"). */
export const RESUME_NOTICE =
  'Resuming: a user message interrupted this work and has been answered. The steps you completed before the ' +
  'interruption are already applied; continue from where you left off.';
