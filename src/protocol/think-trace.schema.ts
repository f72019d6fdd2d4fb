/**
 * The wire and storage shape of a think trace (CONTRACT §10): what one think saw, called and cost.
 * One schema serves the trace store, `thinks.list` / `thinks.get` and the OpenTelemetry export, so they cannot drift.
 */
import { z } from 'zod';

/** One Messages API call of a think (or of a summary update it triggered). */
export const ModelCallTraceSchema = z.object({
  model: z.string(),
  /** Epoch ms the request was sent (its first try). */
  startedAt: z.number(),
  durationMs: z.number().nonnegative(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative(),
  cacheWriteTokens: z.number().int().nonnegative(),
  costUsd: z.number().nonnegative(),
  /** The API's `stop_reason`; absent when the call failed. */
  stopReason: z.string().optional(),
  /** Tries beyond the first (the SDK's own retries included when known). */
  retries: z.number().int().nonnegative(),
  /** A failed call: its error class or code, and what it said. */
  error: z.object({ type: z.string(), message: z.string() }).optional(),
});
export type ModelCallTrace = z.infer<typeof ModelCallTraceSchema>;

/** One tool call made during a think (Vigil's own tools and MCP tools). */
export const ToolCallTraceSchema = z.object({
  /** The durable call id for MCP tools (`tool.called`), the model's tool_use id otherwise. */
  callId: z.string(),
  name: z.string(),
  startedAt: z.number(),
  durationMs: z.number().nonnegative(),
  ok: z.boolean(),
  resultBytes: z.number().int().nonnegative(),
});
export type ToolCallTrace = z.infer<typeof ToolCallTraceSchema>;

/** One section of the prompt (identity, tools, summary, recalled memories, recent turns, the turn's messages, …). */
export const PromptSectionTraceSchema = z.object({
  name: z.string(),
  tokens: z.number().int().nonnegative(),
  /** Inside the cached prefix. */
  cached: z.boolean().optional(),
  /** Only with `VIGIL_TRACE_CONTENT=true`. */
  text: z.string().optional(),
});
export type PromptSectionTrace = z.infer<typeof PromptSectionTraceSchema>;

/** An entry of `thinks.list`: the think, its model calls and tool calls, and their totals. */
export const ThinkTraceSummarySchema = z.object({
  id: z.string(),
  turnIds: z.array(z.string()),
  /** Why it ran: `user_message`, `goal_work`, `swarm_results`, `debrief`, … */
  reason: z.string(),
  model: z.string(),
  /** Epoch ms. */
  startedAt: z.number(),
  durationMs: z.number().nonnegative(),
  stopReason: z.string(),
  calls: z.array(ModelCallTraceSchema),
  toolCalls: z.array(ToolCallTraceSchema),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative(),
  cacheWriteTokens: z.number().int().nonnegative(),
  costUsd: z.number().nonnegative(),
  /** The think failed: its code and reason. */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type ThinkTraceSummary = z.infer<typeof ThinkTraceSummarySchema>;

/** `thinks.get`: the summary plus the prompt's sections, and the text of prompt and answers when content tracing is on. */
export const ThinkTraceSchema = ThinkTraceSummarySchema.extend({
  sections: z.array(PromptSectionTraceSchema),
  content: z
    .object({ system: z.string().optional(), messages: z.array(z.object({ role: z.string(), text: z.string() })) })
    .optional(),
});
export type ThinkTrace = z.infer<typeof ThinkTraceSchema>;
