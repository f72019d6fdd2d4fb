/** The `CognitiveCheckpoint`: every actor's state plus heartbeat and conversation fields, versioned for migration. */
import { z } from 'zod';
import { AffectStateSchema } from '../actors/affect/affect.schema.js';
import { BudgetStateSchema } from '../actors/budget/budget.schema.js';
import { GoalsStateSchema } from '../actors/goals/goals.schema.js';
import { SwarmsStateSchema } from '../actors/swarms/swarms.schema.js';
import { WorkingMemoryStateSchema } from '../actors/working-memory/working-memory.schema.js';
import { PendingMessageSchema } from './conversation.schema.js';

/** The format this build writes; older ones are migrated on load, newer ones are refused. */
export const CHECKPOINT_FORMAT_VERSION = 2;

/** The heartbeat's own fields. Times are epoch ms. */
export const HeartbeatCheckpointSchema = z.object({
  intervalMs: z.number().nonnegative(),
  /** The last phase completed before the snapshot (always `integrate` for periodic checkpoints). */
  phase: z.enum(['sense', 'think', 'integrate', 'sleep', 'dormant']),
  consecutiveFailures: z.number().int().nonnegative(),
  lastUserActivityAt: z.number().nullable(),
});
export type HeartbeatCheckpoint = z.infer<typeof HeartbeatCheckpointSchema>;

/** The conversation's turn state; the messages themselves live in the append-only log up to `watermark`. */
export const ConversationCheckpointSchema = z.object({
  /** The seq of the last conversation log entry covered by this checkpoint (0: none). */
  watermark: z.number().int().nonnegative(),
  /** Replies since the user's last message. */
  unreadReplies: z.number().int().nonnegative(),
  lastMessageAt: z.number().nullable(),
  /** User messages received but not yet answered. */
  pending: z.array(PendingMessageSchema),
  /** When the last debrief was injected (seed 004's turn timer). */
  lastDebriefAt: z.number().nullable(),
  /** When the turn in progress (or the last one) began. */
  turnStartedAt: z.number().nullable(),
  /** A turn was running: a restore that cuts it short injects one debrief. */
  turnInProgress: z.boolean(),
  /** The rolling summary's watermark at the checkpoint: a restore goes back to the summary that covered this far. */
  summaryThroughSeq: z.number().int().nonnegative().optional(),
});
export type ConversationCheckpoint = z.infer<typeof ConversationCheckpointSchema>;

/** Every supervised actor's state. */
export const ActorStatesSchema = z.object({
  affect: AffectStateSchema,
  goals: GoalsStateSchema,
  workingMemory: WorkingMemoryStateSchema,
  swarms: SwarmsStateSchema,
  budget: BudgetStateSchema,
});
export type ActorStates = z.infer<typeof ActorStatesSchema>;

/** The whole cognitive state at a beat boundary. No secrets: no tokens, no API keys. */
export const CognitiveCheckpointSchema = z.object({
  id: z.string().min(1),
  /** Epoch ms. */
  createdAt: z.number(),
  beatCount: z.number().int().nonnegative(),
  formatVersion: z.literal(CHECKPOINT_FORMAT_VERSION),
  runtimeVersion: z.string(),
  actors: ActorStatesSchema,
  heartbeat: HeartbeatCheckpointSchema,
  conversation: ConversationCheckpointSchema,
  /**
   * Long-term memory's watermark: the highest memory seq issued when the checkpoint was taken. Memories above it were
   * made later; a restore keeps them. Absent in checkpoints taken before long-term memory existed.
   */
  longTermMemory: z.object({ watermark: z.number().int().nonnegative() }).optional(),
});
export type CognitiveCheckpoint = z.infer<typeof CognitiveCheckpointSchema>;

/** What `list` returns per checkpoint, read from the index without touching the body. */
export const CheckpointMetaSchema = z.object({
  id: z.string(),
  /** Epoch ms. */
  createdAt: z.number(),
  beatCount: z.number().int().nonnegative(),
  /** Compressed bytes stored. */
  sizeBytes: z.number().int().nonnegative(),
  formatVersion: z.number().int().positive(),
});
export type CheckpointMeta = z.infer<typeof CheckpointMetaSchema>;
