/** How the heartbeat reads a think that threw: what failed, whether it counts for the circuit breaker, and what it kept. */
import { describeError } from '../errors.js';
import type { ThinkResult } from '../subsystems/thinking/thinker.schema.js';
import type { ThinkFailure } from './settle-think.js';

/** The first pause after the API refused the credentials; it doubles while they keep being refused. */
export const THINKER_PAUSE_MIN_MS = 60_000;
/** The longest pause between two tries of refused credentials. */
export const THINKER_PAUSE_MAX_MS = 60 * 60_000;

/** A thrown think, read. */
export interface ThinkOutcome {
  failure: ThinkFailure;
  /** What a preempted think completed before it yielded (its actions are kept); null otherwise. */
  partial: ThinkResult | null;
  /** Transient failures count toward the circuit breaker; refusals, credential pauses and preemption do not. */
  countsAsFailure: boolean;
  /** False for a preemption, which is announced as `agent.preempted`, not `think.failed`. */
  announce: boolean;
}

/** Reads the error a think rejected with; `preempted` says whether a user message aborted it. */
export function thinkFailure(error: unknown, preempted: boolean): ThinkOutcome {
  const raw = (error as { code?: unknown }).code;
  const code = typeof raw === 'string' ? raw : 'THINK_FAILED';
  const failure = { code, reason: describeError(error) };
  if (preempted && code === 'THINK_ABORTED') {
    return { failure, partial: partialResultOf(error), countsAsFailure: false, announce: false };
  }
  const permanent = code === 'THINK_REJECTED' || code === 'CONTEXT_TOO_SMALL' || code === 'THINK_AUTH_FAILED';
  return { failure, partial: null, countsAsFailure: !permanent, announce: true };
}

function partialResultOf(error: unknown): ThinkResult | null {
  const partial = (error as { data?: { partial?: Partial<ThinkResult> } }).data?.partial;
  if (partial === undefined || !Array.isArray(partial.actions) || partial.actions.length === 0) return null;
  return {
    model: partial.model ?? 'unknown',
    actions: partial.actions,
    usage: partial.usage ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    // The ledger already holds its cost (recorded when the think rejected); settling charges nothing again.
    costMicroUsd: 0,
  };
}
