/** Reads the whole cognitive state at a beat boundary into a `CognitiveCheckpoint` (synchronous: nothing moves meanwhile). */
import {
  CHECKPOINT_FORMAT_VERSION,
  type ActorStates,
  type CognitiveCheckpoint,
} from '../protocol/checkpoint-format.schema.js';
import type { DomainActorRefs, HeartbeatContext } from './heartbeat.types.js';

/** Each domain actor's current state. */
export function readActorStates(refs: DomainActorRefs): ActorStates {
  return {
    affect: refs.affect.getSnapshot().context,
    goals: refs.goals.getSnapshot().context,
    workingMemory: refs.workingMemory.getSnapshot().context,
    swarms: refs.swarms.getSnapshot().context,
    budget: refs.budget.getSnapshot().context,
  };
}

/** The checkpoint of `context` as of now, with id `id`. */
export function snapshotCheckpoint(context: HeartbeatContext, id: string, phase: CognitiveCheckpoint['heartbeat']['phase']): CognitiveCheckpoint {
  const { deps } = context;
  return {
    id,
    createdAt: deps.clock.now(),
    beatCount: context.beatCount,
    formatVersion: CHECKPOINT_FORMAT_VERSION,
    runtimeVersion: deps.runtimeVersion,
    actors: readActorStates(context.refs),
    heartbeat: {
      intervalMs: context.intervalMs,
      phase,
      consecutiveFailures: context.consecutiveFailures,
      lastUserActivityAt: context.lastUserActivityAt,
    },
    conversation: {
      watermark: deps.conversation.watermark(),
      unreadReplies: context.turns.unreadReplies,
      lastMessageAt: context.turns.lastMessageAt,
      pending: context.turns.pending,
      lastDebriefAt: context.turns.lastDebriefAt,
      turnStartedAt: context.turns.turnStartedAt,
      turnInProgress: context.turns.turnInProgress,
      ...(deps.context === undefined ? {} : { summaryThroughSeq: Math.min(deps.context.summaryWatermark(), deps.conversation.watermark()) }),
    },
    ...(deps.memory === undefined ? {} : { longTermMemory: { watermark: deps.memory.watermark() } }),
  };
}
