/** The wire shapes of tool-call approvals (CONTRACT §8): `tools.pending`, `tools.approve`, `tools.deny`. */
import { z } from 'zod';
import { isoTime } from './iso-time.js';

/** A call waiting for an operator's decision, as `tools.pending` lists it. */
export const PendingToolCallSchema = z.object({
  callId: z.string(),
  /** The `mcp__SERVER__TOOL` name. */
  name: z.string(),
  /** The arguments the model gave, as it gave them. */
  args: z.unknown(),
  /** The turn whose think made the call (it waits for the decision). */
  turnId: z.string().optional(),
  /** The sub-agent task that made the call, if one did. */
  taskId: z.string().optional(),
  requestedAt: isoTime,
});
export type PendingToolCall = z.infer<typeof PendingToolCallSchema>;

/** `tools.approve` params. */
export const ApproveToolCallParamsSchema = z.object({ callId: z.string().min(1).max(200) });
export type ApproveToolCallParams = z.infer<typeof ApproveToolCallParamsSchema>;

/** `tools.deny` params: the reason is passed on to the model. */
export const DenyToolCallParamsSchema = z.object({
  callId: z.string().min(1).max(200),
  reason: z.string().trim().min(1).max(2000).optional(),
});
export type DenyToolCallParams = z.infer<typeof DenyToolCallParamsSchema>;

/** The answer of `tools.approve` and `tools.deny`: the decision as recorded (an approved call runs after it). */
export const ToolDecisionSchema = z.object({
  callId: z.string(),
  name: z.string(),
  approved: z.boolean(),
  reason: z.string().optional(),
  decidedAt: isoTime,
});
export type ToolDecision = z.infer<typeof ToolDecisionSchema>;
