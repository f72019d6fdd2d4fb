/** Hands each finished think to the trace sink (CONTRACT §10): its result, or its failure with what it completed. */
import { describeError } from '../errors.js';
import type { ThinkInput, ThinkResult } from '../subsystems/thinking/thinker.schema.js';
import type { HeartbeatDeps } from './heartbeat.types.js';

/** When a think began: the clock's epoch ms for the trace, the performance clock for its duration. */
export interface ThinkStart {
  at: number;
  perf: number;
}

/** Marks the start of a think. */
export function thinkStart(deps: HeartbeatDeps): ThinkStart {
  return { at: deps.clock.now(), perf: performance.now() };
}

/** What a failed think completed, as thinkers carry it in `data.partial`; null when it carried nothing usable. */
function partialOf(err: unknown): ThinkResult | null {
  const partial = (err as { data?: { partial?: Partial<ThinkResult> } } | null)?.data?.partial;
  if (partial === undefined || typeof partial.model !== 'string' || partial.usage === undefined) return null;
  return {
    model: partial.model,
    actions: partial.actions ?? [],
    usage: partial.usage,
    costMicroUsd: partial.costMicroUsd ?? 0,
    ...(partial.trace === undefined ? {} : { trace: partial.trace }),
  };
}

/** Records the think that began at `start` (a no-op without a sink); `error` when it failed, with `result` or its partial. */
export async function traceThink(
  deps: HeartbeatDeps,
  input: ThinkInput,
  start: ThinkStart,
  outcome: { result: ThinkResult } | { error: unknown; result?: ThinkResult },
): Promise<void> {
  if (deps.traces === undefined) return;
  const durationMs = Math.round((performance.now() - start.perf) * 1000) / 1000;
  const model = (deps.thinker as { model?: unknown }).model;
  const base = { input, model: typeof model === 'string' ? model : deps.thinker.kind, startedAt: start.at, durationMs };
  if (!('error' in outcome)) {
    await deps.traces.record({ ...base, result: outcome.result });
    return;
  }
  const raw = (outcome.error as { code?: unknown } | null)?.code;
  const error = { code: typeof raw === 'string' ? raw : 'THINK_FAILED', message: describeError(outcome.error) };
  await deps.traces.record({ ...base, result: outcome.result ?? partialOf(outcome.error), error });
}
