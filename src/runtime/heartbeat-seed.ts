/** The state the heartbeat starts from: a cold start, or a checkpoint brought up to date with what was logged after it. */
import { initialAffectState } from '../actors/affect/affect.reducer.js';
import { initialGoalsState } from '../actors/goals/goals.reducer.js';
import { initialSwarmsState, swarmsReducer } from '../actors/swarms/swarms.reducer.js';
import type { SwarmsState } from '../actors/swarms/swarms.schema.js';
import { decayWorkingMemory, initialWorkingMemoryState } from '../actors/working-memory/working-memory.reducer.js';
import type { HeartbeatSeed, TurnState } from '../heartbeat/heartbeat.types.js';
import type { CognitiveCheckpoint } from '../subsystems/checkpoint/checkpoint.schema.js';
import type { ConversationMessage } from '../subsystems/conversation/conversation.schema.js';
import type { SwarmResultRecord } from '../subsystems/swarm-results/swarm-result-log.js';

/** Settings a cold start needs. */
export interface ColdStartSettings {
  now: number;
  beatMs: number;
  wmCapacity: number;
  swarmConcurrency: number;
}

/** A fresh agent: baseline affect, empty memory, no goals, no tasks. */
export function coldSeed(settings: ColdStartSettings): HeartbeatSeed {
  return {
    actors: {
      affect: initialAffectState(settings.now),
      goals: initialGoalsState(),
      workingMemory: initialWorkingMemoryState(settings.now, settings.wmCapacity),
      swarms: initialSwarmsState(settings.swarmConcurrency),
    },
    beatCount: 0,
    intervalMs: settings.beatMs,
    consecutiveFailures: 0,
    lastUserActivityAt: null,
    turns: { pending: [], unreadReplies: 0, lastMessageAt: null },
    restoredFrom: null,
  };
}

/** What happened after the checkpoint, read from the append-only logs. */
export interface AfterCheckpoint {
  /** Conversation messages past the checkpoint's watermark (empty when they were archived by an explicit restore). */
  messagesAfter: readonly ConversationMessage[];
  /** Recorded outcomes of tasks the checkpoint saw queued or running. */
  finishedTasks: readonly SwarmResultRecord[];
}

/**
 * The seed for resuming from `checkpoint` at `now`: working memory decays by the time since; tasks that finished
 * after it take their recorded outcome and the rest re-queue by id; messages logged after it are replayed.
 */
export function seedFromCheckpoint(checkpoint: CognitiveCheckpoint, now: number, after: AfterCheckpoint): HeartbeatSeed {
  return {
    actors: {
      affect: checkpoint.actors.affect,
      goals: checkpoint.actors.goals,
      workingMemory: decayWorkingMemory(checkpoint.actors.workingMemory, now),
      swarms: settleSwarms(checkpoint.actors.swarms, after.finishedTasks, now),
    },
    beatCount: checkpoint.beatCount,
    intervalMs: checkpoint.heartbeat.intervalMs,
    consecutiveFailures: checkpoint.heartbeat.consecutiveFailures,
    lastUserActivityAt: latest(checkpoint.heartbeat.lastUserActivityAt, lastUserMessageAt(after.messagesAfter)),
    turns: replayTurns(checkpoint.conversation, after.messagesAfter),
    restoredFrom: checkpoint.id,
  };
}

function settleSwarms(state: SwarmsState, finished: readonly SwarmResultRecord[], now: number): SwarmsState {
  let next = state;
  for (const record of finished) {
    next =
      record.status === 'done'
        ? swarmsReducer(next, { type: 'swarm.succeeded', at: record.finishedAt, id: record.taskId, result: record.text })
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
  for (const message of messagesAfter) {
    if (message.role === 'user') {
      if (!pending.some((p) => p.turnId === message.turnId)) {
        pending.push({ turnId: message.turnId, text: message.text, from: message.from ?? 'user', at: message.at });
      }
      unreadReplies = 0;
      lastMessageAt = message.at;
    } else {
      pending = pending.filter((p) => p.turnId !== message.turnId);
      unreadReplies += 1;
    }
  }
  return { pending, unreadReplies, lastMessageAt };
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
