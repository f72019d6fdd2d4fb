/** A think trace with two model calls and the tools the first asked for, one of which failed. */
import type { ThinkTrace } from '../../../src/protocol/think-trace.schema.js';

/** Epoch ms the sample think started. */
export const T0 = Date.parse('2026-03-01T10:00:00Z');

/** think 0–1000 ms: chat 10–400 → two tools 405–500 and 410–600 (the second fails) → chat 610–990. */
export function sampleTrace(overrides: Partial<ThinkTrace> = {}): ThinkTrace {
  const call = (startedAt: number, durationMs: number, stopReason: string, input: number) => ({
    model: 'claude-sonnet-5-5',
    startedAt,
    durationMs,
    inputTokens: input,
    outputTokens: 40,
    cacheReadTokens: 1000,
    cacheWriteTokens: 200,
    costUsd: 0.002,
    stopReason,
    retries: 0,
  });
  return {
    id: 'think-1',
    turnIds: ['turn-7'],
    reason: 'user_message',
    model: 'claude-sonnet-5-5',
    startedAt: T0,
    durationMs: 1000,
    stopReason: 'end_turn',
    calls: [call(T0 + 10, 390, 'tool_use', 100), call(T0 + 610, 380, 'end_turn', 150)],
    toolCalls: [
      { callId: 'toolu_a', name: 'mcp__files__read', startedAt: T0 + 405, durationMs: 95, ok: true, resultBytes: 512 },
      { callId: 'toolu_b', name: 'recall', startedAt: T0 + 410, durationMs: 190, ok: false, resultBytes: 30 },
    ],
    inputTokens: 250,
    outputTokens: 80,
    cacheReadTokens: 2000,
    cacheWriteTokens: 400,
    costUsd: 0.004,
    sections: [{ name: 'identity', tokens: 900, cached: true }],
    ...overrides,
  };
}
