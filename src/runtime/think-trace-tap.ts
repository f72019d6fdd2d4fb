/**
 * A think's trace taken where the think returns: wraps the thinker, times each think with the runtime's clock and
 * builds its `ThinkTrace` from the input and the result (the model calls, tool calls and sections the thinker
 * recorded in `result.trace`, when it did). It stands in for the trace store's "think stored" hook.
 */
import { describeError } from '../errors.js';
import { partialCostOf } from '../heartbeat/cost-recorder.js';
import type { ThinkTrace } from '../protocol/think-trace.schema.js';
import type { Clock } from '../shared/clock.js';
import type { Thinker } from '../subsystems/thinking/thinker.js';
import { ZERO_USAGE, type ThinkInput, type ThinkResult, type TokenUsage } from '../subsystems/thinking/thinker.schema.js';

/** What the tap reports a think with. */
export type ThinkTraceSink = (trace: ThinkTrace) => void;

/** `thinker`, with every think (finished or failed) reported to `sink` as a `ThinkTrace`; `model` names a failed think's model. */
export function tapThinkTraces(thinker: Thinker, clock: Clock, model: string, sink: ThinkTraceSink): Thinker {
  let count = 0;
  const tapped: Thinker = {
    kind: thinker.kind,
    async think(input, signal) {
      const startedAt = clock.now();
      count += 1;
      const id = `think-${startedAt.toString(36)}-${count.toString(36)}`;
      let result: ThinkResult;
      try {
        result = await thinker.think(input, signal);
      } catch (err) {
        const partial = partialCostOf(err);
        const code = (err as { code?: unknown } | null)?.code;
        sink({
          ...base(id, input, startedAt, clock.now() - startedAt, partial?.model ?? model, partial?.usage ?? ZERO_USAGE, partial?.costMicroUsd ?? 0),
          stopReason: '',
          calls: [],
          toolCalls: [],
          sections: [],
          error: { code: typeof code === 'string' ? code : 'THINK_FAILED', message: describeError(err) },
        });
        throw err;
      }
      sink({
        ...base(id, input, startedAt, clock.now() - startedAt, result.model, result.usage, result.costMicroUsd),
        stopReason: result.trace?.stopReason ?? '',
        calls: result.trace?.calls ?? [],
        toolCalls: result.trace?.toolCalls ?? [],
        sections: result.trace?.sections ?? [],
      });
      return result;
    },
    runTask: (input, signal) => thinker.runTask(input, signal),
  };
  if (thinker.useTools !== undefined) tapped.useTools = (tools) => thinker.useTools!(tools);
  return tapped;
}

function base(id: string, input: ThinkInput, startedAt: number, durationMs: number, model: string, usage: TokenUsage, costMicroUsd: number) {
  return {
    id,
    turnIds: [...new Set([input.turnId, ...input.pendingMessages.map((message) => message.turnId)])],
    reason: input.reason,
    model,
    startedAt,
    durationMs: Math.max(0, durationMs),
    ...usage,
    costUsd: costMicroUsd / 1_000_000,
  };
}
