/** The `Thinker` interface: the think phase's one dependency, offline or Claude. */
import type { SummaryRequest, SummaryResult } from './summary-request.js';
import type { MemoryRecall } from './recall-tool.js';
import type { ModelSchedules } from './schedule-tools.js';
import type { ThinkTools } from './think-tools.js';
import type { CacheHealthDeps } from './cache-health-monitor.js';
import type { SwarmTaskInput, SwarmTaskOutput, ThinkInput, ThinkResult, TokenUsage } from './thinker.schema.js';

/** What a task's runner is told as it goes. */
export interface TaskHooks {
  /**
   * One model call of the task completed and cost this much. Awaited before the task goes on: the caller records it
   * (the budget ledger), so a crash mid-task loses no spend; a rejection fails the task.
   */
  onModelCall(cost: { model: string; usage: TokenUsage; costMicroUsd: number }): Promise<void>;
}

/** Where a thinker streams a reply's text as the model writes it (`agent.reply_delta`, live only). */
export interface ReplyStream {
  /** Whether anyone would see it now: a thinker streams only then, and asks for whole replies otherwise. */
  wanted(): boolean;
  /** The next piece of the reply to `turnId`; the final `agent.reply` still carries the whole text. */
  delta(turnId: string, text: string): void;
}

/** Decides what the agent does given what it sees. Implementations must honour `signal` (preemption, hard stop). */
export interface Thinker {
  /** Short name for logs and status (`offline`, `anthropic`). */
  readonly kind: string;
  /** One think: read the input, return actions and usage. Rejects with THINK_ABORTED when `signal` aborts. */
  think(input: ThinkInput, signal: AbortSignal): Promise<ThinkResult>;
  /** Runs one swarm sub-agent task to its answer; `hooks.onModelCall` hears each model call's cost as it lands. */
  runTask(input: SwarmTaskInput, signal: AbortSignal, hooks?: TaskHooks): Promise<SwarmTaskOutput>;
  /** Gives the thinker the runtime's external (MCP) tools; a thinker without this method uses none. */
  useTools?(tools: ThinkTools): void;
  /**
   * Reports prompt-cache health (short prefixes, missed reads) and implausible usage reports on the bus, checking
   * `identity`'s prefix at once.
   */
  useCacheHealth?(deps: CacheHealthDeps, identity: string): void;
  /** Folds older conversation into the rolling summary; a thinker without it gets the deterministic extractive one. */
  summarize?(request: SummaryRequest, signal: AbortSignal): Promise<SummaryResult>;
  /** Gives the thinker the runtime's long-term memory for its `recall` tool; a thinker without this method has none. */
  useMemory?(memory: MemoryRecall): void;
  /** Gives the thinker the runtime's schedules for the model's `schedule_*` tools; a thinker without this method has none. */
  useSchedules?(schedules: ModelSchedules): void;
  /** Streams replies' text to `stream` as the model writes it, while it is wanted; a thinker without it replies whole. */
  useReplyStream?(stream: ReplyStream): void;
}
