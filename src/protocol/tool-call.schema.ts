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

/**
 * An operator's decision on a call to a tool under `requireApproval`: `pending` until `tools.approve` or `tools.deny`;
 * `delivered` once a think of its turn was told the outcome (the result, or the denial and its reason).
 */
export const ToolApprovalSchema = z.object({
  state: z.enum(['pending', 'approved', 'denied']),
  /** The operator's reason for a denial. */
  reason: z.string().optional(),
  /** Epoch ms of the decision. */
  decidedAt: z.number().optional(),
  delivered: z.boolean().optional(),
});
export type ToolApproval = z.infer<typeof ToolApprovalSchema>;

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
  /** Present on a call to a tool under `requireApproval`: it runs only once approved (its intent is written at the request). */
  approval: ToolApprovalSchema.optional(),
});
export type ToolCallRecord = z.infer<typeof ToolCallRecordSchema>;
