/** The state the heartbeat starts from: a cold start, or a checkpoint brought up to date with what was logged after it. */
import { initialAffectState } from '../actors/affect/affect.reducer.js';
import { dayKeyIn } from '../actors/budget/budget-calendar.js';
import { initialBudgetState } from '../actors/budget/budget.reducer.js';
import type { BudgetState } from '../actors/budget/budget.schema.js';
import { initialGoalsState } from '../actors/goals/goals.reducer.js';
import { initialSwarmsState, swarmsReducer } from '../actors/swarms/swarms.reducer.js';
import type { SwarmsState } from '../actors/swarms/swarms.schema.js';
import { decayWorkingMemory, initialWorkingMemoryState } from '../actors/working-memory/working-memory.reducer.js';
import type { HeartbeatSeed, TurnState } from '../heartbeat/heartbeat.types.js';
import { afterRestart, IDLE_TIMERS, type TurnTimers } from '../heartbeat/turn-tracker.js';
import type { LedgerDay, WakeSignal } from '../subsystems/budget/budget-ledger.schema.js';
import type { TurnTimersRecord as TurnRecord } from '../subsystems/conversation/turn-timers-store.js';
import type { CognitiveCheckpoint } from '../protocol/checkpoint-format.schema.js';
import type { ConversationMessage } from '../protocol/conversation.schema.js';
import type { SwarmResultRecord } from '../subsystems/swarm-results/swarm-result-log.js';

/** What the ledger says about money, independently of any checkpoint (so a crash never resets spend). */
export interface BudgetBasis {
  timezone: string;
  /** The cap in force: a run-time cap from the ledger, else the configured one. */
  capMicroUsd: number;
  /** The ledger's totals for today's local date. */
  today: LedgerDay;
  wakeSignal: WakeSignal | null;
}

/** Settings a cold start needs. */
export interface ColdStartSettings {
  now: number;
  beatMs: number;
  wmCapacity: number;
  swarmConcurrency: number;
  budget: BudgetBasis;
  /** The ledger's last turn timers, if any (a crash before the first checkpoint still owes its debrief). */
  turn: TurnRecord | null;
  /** The whole conversation log: with no checkpoint, every message in it is "after the checkpoint". */
  messages: readonly ConversationMessage[];
}

/** A fresh agent: baseline affect, empty memory, no goals, no tasks; the day's spend from the ledger. */
export function coldSeed(settings: ColdStartSettings): HeartbeatSeed {
  return {
    actors: {
      affect: initialAffectState(settings.now),
      goals: initialGoalsState(),
      workingMemory: initialWorkingMemoryState(settings.now, settings.wmCapacity),
      swarms: initialSwarmsState(settings.swarmConcurrency),
      budget: rebaseBudget(null, settings.budget, settings.now),
    },
    beatCount: 0,
    intervalMs: settings.beatMs,
    consecutiveFailures: 0,
    turns: {
      ...replayTurns(EMPTY_CONVERSATION, settings.messages),
      ...afterRestart(timersFrom(settings.turn), settings.now),
    },
    lastUserActivityAt: lastUserMessageAt(settings.messages),
    restoredFrom: null,
  };
}

const EMPTY_CONVERSATION: CognitiveCheckpoint['conversation'] = {
  watermark: 0,
  unreadReplies: 0,
  lastMessageAt: null,
  pending: [],
  lastDebriefAt: null,
  turnStartedAt: null,
  turnInProgress: false,
};

/** What happened after the checkpoint, read from the append-only logs and the ledger. */
export interface AfterCheckpoint {
  /** Conversation messages past the checkpoint's watermark (empty when they were archived by an explicit restore). */
  messagesAfter: readonly ConversationMessage[];
  /** Recorded outcomes of tasks the checkpoint saw queued or running. */
  finishedTasks: readonly SwarmResultRecord[];
  budget: BudgetBasis;
  /** The ledger's newer turn timers at boot; null on an explicit restore (the checkpoint's own timers apply). */
  turn: TurnRecord | null;
}

/**
 * The seed for resuming from `checkpoint` at `now`: working memory decays by the time since; tasks that finished
 * after it take their recorded outcome and the rest re-queue by id; messages logged after it are replayed; spend
 * is never below the ledger's; a turn it cut short owes one debrief.
 */
export function seedFromCheckpoint(
  checkpoint: CognitiveCheckpoint,
  now: number,
  after: AfterCheckpoint,
): HeartbeatSeed {
  const turns = replayTurns(checkpoint.conversation, after.messagesAfter);
  const timers = after.turn === null ? timersOfTurns(turns) : { ...timersOfTurns(turns), ...timersFrom(after.turn) };
  return {
    actors: {
      affect: checkpoint.actors.affect,
      goals: checkpoint.actors.goals,
      workingMemory: decayWorkingMemory(checkpoint.actors.workingMemory, now),
      swarms: settleSwarms(checkpoint.actors.swarms, after.finishedTasks, now),
      budget: rebaseBudget(checkpoint.actors.budget, after.budget, now),
    },
    beatCount: checkpoint.beatCount,
    intervalMs: checkpoint.heartbeat.intervalMs,
    consecutiveFailures: checkpoint.heartbeat.consecutiveFailures,
    lastUserActivityAt: latest(checkpoint.heartbeat.lastUserActivityAt, lastUserMessageAt(after.messagesAfter)),
    turns: { ...turns, ...afterRestart(timers, now) },
    restoredFrom: checkpoint.id,
  };
}

/**
 * The budget to resume with. Same day: the checkpoint's state, with spend and top-ups never below the ledger's. A
 * sleeper from an earlier day with nothing charged since keeps its old day, so the heartbeat wakes it for the new
 * one (`daily_reset`). Otherwise a fresh day carrying the ledger's spend.
 */
export function rebaseBudget(previous: BudgetState | null, basis: BudgetBasis, now: number): BudgetState {
  const today = dayKeyIn(basis.timezone, now);
  const wakeRequested = basis.wakeSignal !== null;
  if (previous !== null && previous.timezone === basis.timezone && previous.dayKey === today) {
    return {
      ...previous,
      dailyCapMicroUsd: basis.capMicroUsd,
      spentTodayMicroUsd: Math.max(previous.spentTodayMicroUsd, basis.today.spentMicroUsd),
      topUpMicroUsd: Math.max(previous.topUpMicroUsd, basis.today.topUpMicroUsd),
      wakeRequested: previous.wakeRequested || wakeRequested,
    };
  }
  if (
    previous !== null &&
    previous.sleeping &&
    previous.timezone === basis.timezone &&
    previous.dayKey < today &&
    basis.today.charges === 0
  ) {
    return { ...previous, dailyCapMicroUsd: basis.capMicroUsd };
  }
  return {
    ...initialBudgetState(now, basis.timezone, basis.capMicroUsd),
    spentTodayMicroUsd: basis.today.spentMicroUsd,
    topUpMicroUsd: basis.today.topUpMicroUsd,
    sessionCostMicroUsd: previous?.sessionCostMicroUsd ?? 0,
  };
}

function settleSwarms(state: SwarmsState, finished: readonly SwarmResultRecord[], now: number): SwarmsState {
  let next = state;
  for (const record of finished) {
    next =
      record.status === 'done'
        ? swarmsReducer(next, {
            type: 'swarm.succeeded',
            at: record.finishedAt,
            id: record.taskId,
            result: record.text,
          })
        : record.status === 'cancelled'
          ? swarmsReducer(next, {
              type: 'swarm.cancelled',
              at: record.finishedAt,
              id: record.taskId,
              reason: record.text,
            })
          : swarmsReducer(next, { type: 'swarm.failed', at: record.finishedAt, id: record.taskId, error: record.text });
  }
  return swarmsReducer(next, { type: 'swarm.requeue_running', at: now });
}

/** Turn state after replaying logged messages: user messages become pending unless answered; replies count as unread. */
export function replayTurns(
  base: CognitiveCheckpoint['conversation'],
  messagesAfter: readonly ConversationMessage[],
): TurnState {
  let pending = [...base.pending];
  let unreadReplies = base.unreadReplies;
  let lastMessageAt = base.lastMessageAt;
  let lastDebriefAt = base.lastDebriefAt;
  for (const message of messagesAfter) {
    if (message.role === 'user') {
      if (!pending.some((p) => p.turnId === message.turnId)) {
        const { turnId, text, from = 'user', scope, at } = message;
        pending.push({ turnId, text, from, ...(scope === undefined ? {} : { scope }), at });
      }
      unreadReplies = 0;
      lastMessageAt = message.at;
      lastDebriefAt = null;
    } else {
      pending = pending.filter((p) => p.turnId !== message.turnId);
      unreadReplies += 1;
    }
  }
  return {
    pending,
    unreadReplies,
    lastMessageAt,
    lastDebriefAt,
    turnStartedAt: base.turnStartedAt,
    turnInProgress: base.turnInProgress,
    debriefDue: false,
    debriefNotBefore: null,
  };
}

function timersOfTurns(turns: TurnState): TurnTimers {
  const { pending: _pending, unreadReplies: _unread, ...timers } = turns;
  return timers;
}

function timersFrom(record: TurnRecord | null): TurnTimers {
  return record === null ? IDLE_TIMERS : { ...IDLE_TIMERS, ...record };
}

function lastUserMessageAt(messages: readonly ConversationMessage[]): number | null {
  let at: number | null = null;
  for (const message of messages) if (message.role === 'user') at = message.at;
  return at;
}

function latest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}
