/** The stored record of one tool call (the ToolCallLog): its intent, written before the call, and its result after. */
import { z } from 'zod';

/** How a call ended, as stored: the (capped) text the caller saw and its sizes. */
export const ToolCallResultSchema = z.object({
  ok: z.boolean(),
  durationMs: z.number().nonnegative(),
  /** The size of the whole result as the server sent it (JSON), before any cap. */
  resultBytes: z.number().int().nonnegative(),
  /** What was passed on, already capped (an image is described here, not stored). */
  text: z.string(),
});
export type ToolCallResult = z.infer<typeof ToolCallResultSchema>;

/** One call: its intent, then its result once it has one; `reported` once a crash-left-unknown call was announced. */
export const ToolCallRecordSchema = z.object({
  callId: z.string(),
  /** The turn whose think made the call. */
  turnId: z.string().optional(),
  /** The sub-agent task that made the call, when a task made it (its turn is the one that spawned it). */
  taskId: z.string().optional(),
  /** The `mcp__SERVER__TOOL` name. */
  name: z.string(),
  args: z.unknown(),
  /** Epoch ms the intent was written. */
  at: z.number(),
  /** The tool was listed in its server's `idempotentTools` at the time of the call. */
  idempotent: z.boolean(),
  result: ToolCallResultSchema.optional(),
  /** `tool.interrupted` was emitted for it (after a crash between intent and result). */
  interruptedReported: z.boolean().optional(),
});
export type ToolCallRecord = z.infer<typeof ToolCallRecordSchema>;
