/** Reads the whole cognitive state at a beat boundary into a `CognitiveCheckpoint` (synchronous: nothing moves meanwhile). */
import {
  CHECKPOINT_FORMAT_VERSION,
  type ActorStates,
  type CognitiveCheckpoint,
} from '../protocol/checkpoint-format.schema.js';
import type { DomainActorRefs, HeartbeatContext, HeartbeatDeps, HeartbeatSeed } from './heartbeat.types.js';

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
export function snapshotCheckpoint(
  context: HeartbeatContext,
  id: string,
  phase: CognitiveCheckpoint['heartbeat']['phase'],
): CognitiveCheckpoint {
  const { deps } = context;
  const watermark = deps.conversation.watermark();
  return checkpointOf({ ...context, actors: readActorStates(context.refs) }, deps, {
    id,
    phase,
    watermark,
    summaryWatermark: deps.context?.summaryWatermark() ?? 0,
  });
}

/** Where a checkpoint of a state not yet running stands in the logs (a restore writes it before applying its seed). */
export interface CheckpointPosition {
  id: string;
  phase: CognitiveCheckpoint['heartbeat']['phase'];
  /** The conversation seq up to which the log is accounted for. */
  watermark: number;
  /** The last conversation seq the rolling summary covers. */
  summaryWatermark: number;
}

/**
 * The checkpoint of the heartbeat state `state` (a seed, or a running context's fields): what `snapshotCheckpoint`
 * reads, computable before the heartbeat holds that state.
 */
export function checkpointOf(
  state: Omit<HeartbeatSeed, 'restoredFrom'>,
  deps: HeartbeatDeps,
  at: CheckpointPosition,
): CognitiveCheckpoint {
  return {
    id: at.id,
    createdAt: deps.clock.now(),
    beatCount: state.beatCount,
    formatVersion: CHECKPOINT_FORMAT_VERSION,
    runtimeVersion: deps.runtimeVersion,
    actors: state.actors,
    heartbeat: {
      intervalMs: state.intervalMs,
      phase: at.phase,
      consecutiveFailures: state.consecutiveFailures,
      lastUserActivityAt: state.lastUserActivityAt,
    },
    conversation: {
      watermark: at.watermark,
      unreadReplies: state.turns.unreadReplies,
      lastMessageAt: state.turns.lastMessageAt,
      pending: state.turns.pending,
      lastDebriefAt: state.turns.lastDebriefAt,
      turnStartedAt: state.turns.turnStartedAt,
      turnInProgress: state.turns.turnInProgress,
      ...(deps.context === undefined ? {} : { summaryThroughSeq: Math.min(at.summaryWatermark, at.watermark) }),
    },
    ...(deps.memory === undefined ? {} : { longTermMemory: { watermark: deps.memory.watermark() } }),
  };
}
