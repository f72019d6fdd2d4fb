/** The `Thinker` interface: the think phase's one dependency, offline or Claude. */
import type { MemoryRecall } from './recall-tool.js';
import type { ThinkTools } from './think-tools.js';
import type { SwarmTaskInput, SwarmTaskOutput, ThinkInput, ThinkResult } from './thinker.schema.js';

/** Decides what the agent does given what it sees. Implementations must honour `signal` (preemption, hard stop). */
export interface Thinker {
  /** Short name for logs and status (`offline`, `anthropic`). */
  readonly kind: string;
  /** One think: read the input, return actions and usage. Rejects with THINK_ABORTED when `signal` aborts. */
  think(input: ThinkInput, signal: AbortSignal): Promise<ThinkResult>;
  /** Runs one swarm sub-agent task to its answer. */
  runTask(input: SwarmTaskInput, signal: AbortSignal): Promise<SwarmTaskOutput>;
  /** Gives the thinker the runtime's external (MCP) tools; a thinker without this method uses none. */
  useTools?(tools: ThinkTools): void;
  /** Gives the thinker the runtime's long-term memory for its `recall` tool; a thinker without this method has none. */
  useMemory?(memory: MemoryRecall): void;
}
