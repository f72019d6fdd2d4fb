/**
 * Builds a think's stored trace from what the think phase saw (its input, when it ran, its result or failure): pure,
 * so the totals are checked without a store. Totals are the sums of the model calls; the text of the prompt and the
 * answers is kept only when content tracing is on.
 */
import type { ModelCallTrace, ThinkTrace } from '../../protocol/think-trace.schema.js';
import type { ThinkInput, ThinkResult } from '../thinking/thinker.schema.js';

const MICRO_PER_USD = 1_000_000;

/** One think as the think phase ends it: ran from `startedAt` for `durationMs`, with a result, a failure, or both. */
export interface SettledThink {
  input: ThinkInput;
  /** The thinker's model, for a think that failed before it reported one. */
  model: string;
  /** Epoch ms. */
  startedAt: number;
  durationMs: number;
  /** The result, or what a failed think completed (its `data.partial`); null when nothing is known. */
  result: ThinkResult | null;
  /** Why it failed (THINK_FAILED, THINK_ABORTED, BUDGET_LEDGER_UNAVAILABLE…); absent when it succeeded. */
  error?: { code: string; message: string };
}

/**
 * The calls of a result. A thinker that reports no trace (one of a library user's own) still used the tokens it
 * reports: they count as one call spanning the think, so the totals stay the sums of the calls.
 */
function callsOf(think: SettledThink): ModelCallTrace[] {
  const { result } = think;
  if (result === null) return [];
  if (result.trace !== undefined) return result.trace.calls;
  const { usage } = result;
  const used = usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  if (used === 0 && result.costMicroUsd === 0) return [];
  return [
    {
      model: result.model,
      startedAt: think.startedAt,
      durationMs: think.durationMs,
      ...usage,
      costUsd: result.costMicroUsd / MICRO_PER_USD,
      retries: 0,
    },
  ];
}

function stopReasonOf(think: SettledThink): string {
  const traced = think.result?.trace?.stopReason;
  if (think.error === undefined) return traced ?? 'end_turn';
  if (think.error.code === 'THINK_ABORTED') return 'aborted';
  // A think the thinker finished but the runtime could not use (its cost could not be recorded) failed all the same.
  return traced === undefined || traced === 'end_turn' || traced === 'max_tool_iterations' ? 'error' : traced;
}

/** The stored trace of `think` under `id`; `includeContent` keeps the sections' text and the transcript. */
export function buildThinkTrace(id: string, think: SettledThink, includeContent: boolean): ThinkTrace {
  const { input, result } = think;
  const calls = callsOf(think);
  const sum = (pick: (call: ModelCallTrace) => number) => calls.reduce((total, call) => total + pick(call), 0);
  const sections = (result?.trace?.sections ?? []).map(({ text, ...section }) =>
    includeContent && text !== undefined ? { ...section, text } : section,
  );
  const content = includeContent ? result?.trace?.content : undefined;
  return {
    id,
    turnIds: [...new Set([input.turnId, ...input.pendingMessages.map((m) => m.turnId)])],
    reason: input.reason,
    model: result?.model ?? think.model,
    startedAt: think.startedAt,
    durationMs: think.durationMs,
    stopReason: stopReasonOf(think),
    calls,
    toolCalls: result?.trace?.toolCalls ?? [],
    inputTokens: sum((c) => c.inputTokens),
    outputTokens: sum((c) => c.outputTokens),
    cacheReadTokens: sum((c) => c.cacheReadTokens),
    cacheWriteTokens: sum((c) => c.cacheWriteTokens),
    costUsd: sum((c) => c.costUsd),
    ...(think.error === undefined ? {} : { error: think.error }),
    sections,
    ...(content === undefined ? {} : { content }),
  };
}
