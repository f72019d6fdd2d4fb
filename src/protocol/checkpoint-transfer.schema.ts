/** The portable checkpoint file of `vigil checkpoints export` / `import`: a checkpoint plus its conversation, versioned. */
import { z } from 'zod';
import { CognitiveCheckpointSchema } from './checkpoint-format.schema.js';
import { ConversationSummarySchema } from './conversation-summary.schema.js';
import { ConversationMessageSchema } from './conversation.schema.js';
import { StoredMemorySchema } from './memory.schema.js';

/** A long-term memory in an export: its content, source and times (an import gives it a new id here). */
export const ExportedMemorySchema = StoredMemorySchema.pick({
  content: true,
  source: true,
  salience: true,
  createdAt: true,
  updatedAt: true,
});
export type ExportedMemory = z.infer<typeof ExportedMemorySchema>;

/** The export format this build writes and reads. */
export const CHECKPOINT_EXPORT_VERSION = 1;

/** What `kind` every export file carries, so a stray JSON file is refused with a clear reason. */
export const CHECKPOINT_EXPORT_KIND = 'vigil.checkpoint-export';

/**
 * An exported checkpoint: the decoded checkpoint (current format) and every conversation message up to its
 * watermark, oldest first. Message seqs are the source log's; an import renumbers them.
 */
export const CheckpointExportSchema = z
  .object({
    kind: z.literal(CHECKPOINT_EXPORT_KIND),
    version: z.literal(CHECKPOINT_EXPORT_VERSION),
    exportedAt: z.string().datetime({ offset: true }),
    runtimeVersion: z.string(),
    checkpoint: CognitiveCheckpointSchema,
    messages: z.array(ConversationMessageSchema),
    /** The rolling summary the checkpoint saw (covering at most its watermark); absent when there was none. */
    summary: ConversationSummarySchema.optional(),
    /** The long-term memories the checkpoint knew (up to its memory watermark), oldest first; absent in older exports. */
    memories: z.array(ExportedMemorySchema).optional(),
  })
  .superRefine((doc, ctx) => {
    const { watermark } = doc.checkpoint.conversation;
    if (doc.summary !== undefined && doc.summary.throughSeq > watermark) {
      ctx.addIssue({
        code: 'custom',
        path: ['summary', 'throughSeq'],
        message: `expected at most the checkpoint's watermark ${watermark}`,
      });
    }
    let previous = 0;
    doc.messages.forEach((message, index) => {
      if (message.seq <= previous) {
        ctx.addIssue({
          code: 'custom',
          path: ['messages', index, 'seq'],
          message: `expected seqs in ascending order (after ${previous})`,
        });
      }
      if (message.seq > watermark) {
        ctx.addIssue({
          code: 'custom',
          path: ['messages', index, 'seq'],
          message: `expected at most the checkpoint's watermark ${watermark}`,
        });
      }
      previous = message.seq;
    });
  });
export type CheckpointExport = z.infer<typeof CheckpointExportSchema>;

/** `checkpoint.import` params. */
export const ImportParamsSchema = z.object({ document: CheckpointExportSchema });
export type ImportParams = z.infer<typeof ImportParamsSchema>;

/** `checkpoint.import` result: the checkpoint as stored here (a new id) and how the conversation was carried over. */
export const ImportResultSchema = z.object({
  /** The id to restore (`checkpoint.restore`). */
  id: z.string(),
  /** The id it had where it was exported. */
  importedFrom: z.string(),
  beatCount: z.number().int().nonnegative(),
  /** Messages appended to this data dir's conversation log. */
  messages: z.number().int().nonnegative(),
  /** The imported checkpoint's watermark in this log. */
  watermark: z.number().int().nonnegative(),
  /** Long-term memories carried over (the same fact already here is one memory, refreshed). */
  memories: z.number().int().nonnegative().optional(),
});
export type ImportResult = z.infer<typeof ImportResultSchema>;
