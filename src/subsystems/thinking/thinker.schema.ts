/** The think phase's input and output: what the agent sees, and the actions and token usage it returns. */
import { z } from 'zod';
import { AffectDeltaSchema, AffectDimensionsSchema } from '../../actors/affect/affect.schema.js';
import { GoalPrioritySchema, GoalSchema } from '../../actors/goals/goals.schema.js';
import { MemoryItemSchema } from '../../actors/working-memory/working-memory.schema.js';
import {
  ConversationMessageSchema,
  PendingMessageSchema,
  type PendingMessage,
} from '../../protocol/conversation.schema.js';
import { KeptMemorySourceSchema } from '../../protocol/memory.schema.js';
import {
  ModelCallTraceSchema,
  PromptSectionTraceSchema,
  ThinkTraceSchema,
  ToolCallTraceSchema,
} from '../../protocol/think-trace.schema.js';

export { PendingMessageSchema, type PendingMessage };

/** A finished swarm task's outcome, fed to the next think. */
export const SwarmResultSchema = z.object({
  taskId: z.string(),
  turnId: z.string(),
  prompt: z.string(),
  status: z.enum(['done', 'failed', 'cancelled']),
  text: z.string(),
});
export type SwarmResult = z.infer<typeof SwarmResultSchema>;

/** A long-term memory as a think is shown it. */
export const RecalledMemorySchema = z.object({
  id: z.string(),
  content: z.string(),
  /** Where it came from: `conversation`, `working_memory`, `tool`, `task`, … */
  source: z.string(),
  /** Epoch ms. */
  createdAt: z.number(),
});
export type RecalledMemory = z.infer<typeof RecalledMemorySchema>;

/** An older message of the conversation, found by its words (it has left the prompt's recent conversation). */
export const RecalledMessageSchema = z.object({
  seq: z.number().int().min(1),
  role: z.enum(['user', 'assistant']),
  /** Who sent a user message. */
  from: z.string().optional(),
  text: z.string(),
  /** Epoch ms. */
  at: z.number(),
});
export type RecalledMessage = z.infer<typeof RecalledMessageSchema>;

/** The rolling summary of the conversation older than the recent turns a think is shown. */
export const ConversationSummaryViewSchema = z.object({
  text: z.string(),
  /** The last conversation seq the summary covers. */
  throughSeq: z.number().int().nonnegative(),
});
export type ConversationSummaryView = z.infer<typeof ConversationSummaryViewSchema>;

/** The conversation a think is shown besides the messages it answers: the summary, and the turns after it. */
export const ThinkConversationSchema = z.object({
  summary: ConversationSummaryViewSchema.nullable(),
  /** Log entries after the summary's watermark, oldest first; the prompt shows the newest that fit. */
  recent: z.array(ConversationMessageSchema),
});
export type ThinkConversation = z.infer<typeof ThinkConversationSchema>;

/** One tool call of the turn a debrief validates. */
export const ReviewedToolCallSchema = z.object({
  name: z.string(),
  /** The call's arguments as JSON. */
  args: z.string(),
  /** Absent when a crash left its outcome unknown. */
  ok: z.boolean().optional(),
  /** What the tool answered (capped when stored). */
  result: z.string().optional(),
  at: z.number(),
});
export type ReviewedToolCall = z.infer<typeof ReviewedToolCallSchema>;

/** The turn a debrief think validates (seed 004): its messages and replies, and the tool calls it made. */
export const TurnUnderReviewSchema = z.object({
  /** Epoch ms the turn began. */
  startedAt: z.number(),
  /** Epoch ms it ended. */
  endedAt: z.number(),
  /** The user messages and the agent's replies of the turn, oldest first. */
  messages: z.array(ConversationMessageSchema),
  toolCalls: z.array(ReviewedToolCallSchema),
});
export type TurnUnderReview = z.infer<typeof TurnUnderReviewSchema>;

/** Why this think runs: a user turn, autonomous work on a goal, swarm results, or a debrief. */
export const ThinkReasonSchema = z.enum(['user_message', 'goal_work', 'swarm_results', 'debrief']);
export type ThinkReason = z.infer<typeof ThinkReasonSchema>;

/** Everything the thinker sees for one think. */
export const ThinkInputSchema = z.object({
  identity: z.string(),
  reason: ThinkReasonSchema,
  /** The turn this think belongs to (a user turn's id, or an autonomous turn's). */
  turnId: z.string(),
  /** Epoch ms. */
  now: z.number(),
  affect: AffectDimensionsSchema,
  workingMemory: z.array(MemoryItemSchema),
  goals: z.array(GoalSchema),
  /** The goal chosen for autonomous work, if any. */
  focusGoalId: z.string().optional(),
  pendingMessages: z.array(PendingMessageSchema),
  swarmResults: z.array(SwarmResultSchema),
  /** Extra standing lines for this think (e.g. the wind-down notice or the debrief prompt). */
  notices: z.array(z.string()),
  /** Today's spend against the cap, for the prompt's budget line (absent when no budget applies). */
  budget: z
    .object({
      spentTodayUsd: z.number().nonnegative(),
      dailyCapUsd: z.number().nonnegative(),
      pct: z.number().nonnegative(),
    })
    .optional(),
  /** Long-term memories recalled for this think (most relevant first), already within the prompt's token bound. */
  recalledMemories: z.array(RecalledMemorySchema).optional(),
  /** Older messages of the conversation recalled for this think (most relevant first): none its prompt shows already. */
  recalledMessages: z.array(RecalledMessageSchema).optional(),
  /** The recent conversation and the rolling summary of what is older (absent: the think sees only its messages). */
  conversation: ThinkConversationSchema.optional(),
  /** A debrief's turn: what it validates. */
  turnUnderReview: TurnUnderReviewSchema.optional(),
  /** The bound on the whole prompt, in (conservatively estimated) tokens: `VIGIL_CONTEXT_TOKENS`. */
  contextTokens: z.number().int().positive().optional(),
});
export type ThinkInput = z.infer<typeof ThinkInputSchema>;

/** One thing the thinker decided to do; the integrate phase applies them in order. */
export const ThinkActionSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('reply'), turnId: z.string(), text: z.string() }),
  z.object({
    type: z.literal('remember'),
    content: z.string(),
    salience: z.number().min(0).max(1),
    /** Also keep it in long-term memory now (it is kept anyway if it leaves working memory salient enough). */
    keep: z.boolean().optional(),
    /** Where the fact came from, as long-term memory records it when kept now; by default the think's own kind says. */
    source: KeptMemorySourceSchema.optional(),
  }),
  z.object({ type: z.literal('feel'), delta: AffectDeltaSchema, intensity: z.number().min(0).max(1).optional() }),
  z.object({
    type: z.literal('goal_add'),
    title: z.string().min(1),
    priority: GoalPrioritySchema.optional(),
    dueAt: z.number().optional(),
  }),
  z.object({ type: z.literal('goal_progress'), goalId: z.string(), delta: z.number() }),
  z.object({ type: z.literal('goal_complete'), goalId: z.string() }),
  z.object({
    type: z.literal('spawn_task'),
    prompt: z.string().min(1),
    /** MCP tools (`mcp__SERVER__TOOL`) the task may call; none when absent. */
    tools: z.array(z.string()).optional(),
    /** How long it may run once started; VIGIL_TASK_DEADLINE_MS when absent. */
    deadlineMs: z.number().int().positive().optional(),
    /** The most its model calls may cost; VIGIL_TASK_MAX_COST_USD when absent. */
    maxCostMicroUsd: z.number().int().positive().optional(),
  }),
]);
export type ThinkAction = z.infer<typeof ThinkActionSchema>;

/** Token usage of one think (summed over its API calls). */
export const TokenUsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative(),
  cacheWriteTokens: z.number().int().nonnegative(),
});
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

/** The thinker's answer. */
export const ThinkResultSchema = z.object({
  model: z.string(),
  actions: z.array(ThinkActionSchema),
  usage: TokenUsageSchema,
  /** Integer micro-dollars this think cost. */
  costMicroUsd: z.number().int().nonnegative(),
  /** What the think trace records of it (CONTRACT §10): each model call, each tool call, the prompt's sections. */
  trace: z
    .object({
      calls: z.array(ModelCallTraceSchema),
      toolCalls: z.array(ToolCallTraceSchema),
      sections: z.array(PromptSectionTraceSchema),
      stopReason: z.string(),
      /** The text of the prompt and the answers; stored only with `VIGIL_TRACE_CONTENT=true`. */
      content: ThinkTraceSchema.shape.content,
    })
    .optional(),
});
export type ThinkResult = z.infer<typeof ThinkResultSchema>;

/** Zero usage, for thinkers that call no model. */
export const ZERO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/** What a swarm sub-agent task gets and returns. */
export const SwarmTaskInputSchema = z.object({
  taskId: z.string(),
  prompt: z.string(),
  identity: z.string(),
  /** The turn that spawned it (its tool calls are recorded under it). */
  turnId: z.string().optional(),
  /** The MCP tools it may call, by `mcp__SERVER__TOOL` name; none when absent or empty. */
  tools: z.array(z.string()).optional(),
  /** It stops after the model call that brings its spend to this, with what it has. */
  maxCostMicroUsd: z.number().int().positive().optional(),
});
export type SwarmTaskInput = z.infer<typeof SwarmTaskInputSchema>;
export const SwarmTaskOutputSchema = z.object({
  text: z.string(),
  usage: TokenUsageSchema,
  costMicroUsd: z.number().int().nonnegative(),
  model: z.string(),
});
export type SwarmTaskOutput = z.infer<typeof SwarmTaskOutputSchema>;
