import { describe, expect, it } from 'vitest';
import { requestingCall, thinkSpans, TOOL_ERROR_TYPE } from '../../../src/subsystems/telemetry/think-spans.js';
import { sampleTrace, T0 } from './think-trace.fixture.js';

const OPTIONS = { providerName: 'anthropic', agentName: 'vigil' };

describe('thinkSpans', () => {
  it('makes the think an invoke_agent span with the GenAI attributes and its totals', () => {
    const [think] = thinkSpans(sampleTrace(), OPTIONS);
    expect(think).toMatchObject({
      parentKey: null,
      name: 'invoke_agent vigil',
      kind: 'internal',
      startTime: T0,
      endTime: T0 + 1000,
    });
    expect(think!.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.conversation.id': 'turn-7',
      'gen_ai.agent.name': 'vigil',
      'gen_ai.request.model': 'claude-sonnet-5-5',
      // The conventions count cache reads and writes inside input_tokens; Anthropic does not.
      'gen_ai.usage.input_tokens': 250 + 2000 + 400,
      'gen_ai.usage.output_tokens': 80,
      'gen_ai.usage.cache_read.input_tokens': 2000,
      'gen_ai.usage.cache_creation.input_tokens': 400,
      'gen_ai.response.finish_reasons': ['end_turn'],
      'vigil.think.id': 'think-1',
      'vigil.think.reason': 'user_message',
      'vigil.turn_ids': ['turn-7'],
      'vigil.cost_usd': 0.004,
    });
    expect(think!.error).toBeUndefined();
  });

  it('nests each model call under the think as a chat span, and each tool under the call whose tool_use asked for it', () => {
    const spans = thinkSpans(sampleTrace(), OPTIONS);
    expect(spans.map((s) => [s.name, s.parentKey])).toEqual([
      ['invoke_agent vigil', null],
      ['chat claude-sonnet-5-5', 'think:think-1'],
      ['execute_tool mcp__files__read', 'chat:think-1:0'],
      ['execute_tool recall', 'chat:think-1:0'],
      ['chat claude-sonnet-5-5', 'think:think-1'],
    ]);
    const chat = spans[1]!;
    expect(chat).toMatchObject({ kind: 'client', startTime: T0 + 10, endTime: T0 + 400 });
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-5-5',
      'gen_ai.response.model': 'claude-sonnet-5-5',
      'gen_ai.response.finish_reasons': ['tool_use'],
      'gen_ai.usage.input_tokens': 1300,
      'gen_ai.usage.output_tokens': 40,
      'gen_ai.usage.cache_read.input_tokens': 1000,
      'gen_ai.usage.cache_creation.input_tokens': 200,
      'gen_ai.conversation.id': 'turn-7',
    });
    expect(spans[2]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'mcp__files__read',
      'gen_ai.tool.call.id': 'toolu_a',
      'gen_ai.tool.type': 'extension',
    });
    expect(spans[3]!.attributes['gen_ai.tool.type']).toBe('function');
  });

  it('marks a failed tool, a failed model call and a failed think with error.type and an error status', () => {
    const failedCall = { ...sampleTrace().calls[1]!, error: { type: 'overloaded_error', message: 'Overloaded' } };
    delete (failedCall as { stopReason?: string }).stopReason;
    const trace = sampleTrace({
      calls: [sampleTrace().calls[0]!, failedCall],
      error: { code: 'THINK_FAILED', message: 'The API was overloaded.' },
    });
    const spans = thinkSpans(trace, OPTIONS);
    expect(spans[0]).toMatchObject({
      error: { type: 'THINK_FAILED', message: 'The API was overloaded.' },
      attributes: { 'error.type': 'THINK_FAILED' },
    });
    expect(spans[3]).toMatchObject({ error: { type: TOOL_ERROR_TYPE }, attributes: { 'error.type': TOOL_ERROR_TYPE } });
    const chat = spans[4]!;
    expect(chat).toMatchObject({
      error: { type: 'overloaded_error', message: 'Overloaded' },
      attributes: { 'error.type': 'overloaded_error' },
    });
    // A call that got no answer has no response model and no finish reason.
    expect(chat.attributes['gen_ai.response.model']).toBeUndefined();
    expect(chat.attributes['gen_ai.response.finish_reasons']).toBeUndefined();
  });

  it('hangs a tool that started before any call ended off the think, and leaves out what the trace does not know', () => {
    const trace = sampleTrace({
      turnIds: [],
      stopReason: '',
      toolCalls: [{ callId: 'early', name: 'recall', startedAt: T0 + 5, durationMs: 1, ok: true, resultBytes: 1 }],
    });
    const spans = thinkSpans(trace, OPTIONS);
    expect(spans.at(-1)).toMatchObject({ name: 'execute_tool recall', parentKey: 'think:think-1' });
    expect(spans[0]!.attributes['gen_ai.conversation.id']).toBeUndefined();
    expect(spans[0]!.attributes['gen_ai.response.finish_reasons']).toBeUndefined();
  });
});

describe('requestingCall', () => {
  const { calls } = sampleTrace();
  it('picks the call that ended last at or before the tool started', () => {
    expect(
      requestingCall(calls, { callId: 'x', name: 't', startedAt: T0 + 400, durationMs: 1, ok: true, resultBytes: 0 }),
    ).toBe(0);
    expect(
      requestingCall(calls, { callId: 'x', name: 't', startedAt: T0 + 995, durationMs: 1, ok: true, resultBytes: 0 }),
    ).toBe(1);
    expect(
      requestingCall(calls, { callId: 'x', name: 't', startedAt: T0 + 399, durationMs: 1, ok: true, resultBytes: 0 }),
    ).toBe(-1);
  });
});
