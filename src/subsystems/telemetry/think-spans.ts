/**
 * A think trace as OpenTelemetry span descriptions, following the GenAI semantic conventions
 * (open-telemetry/semantic-conventions-genai: gen-ai-agent-spans.md, gen-ai-spans.md, anthropic.md).
 * Pure: no SDK, no clock. The think is an `invoke_agent` span; each model call a `chat {model}` span under it; each
 * tool call an `execute_tool {tool}` span under the model call whose tool_use asked for it.
 */
import type { ModelCallTrace, ThinkTrace, ToolCallTrace } from '../../protocol/think-trace.schema.js';

/** An attribute value as OTLP carries it. */
export type SpanAttributeValue = string | number | boolean | string[];

/** One span to create: its place in the tree, its times (epoch ms) and what it says. */
export interface SpanDescription {
  /** Unique within one think; children name their parent by it. */
  key: string;
  /** Null for the think's own span; a parent always comes before its children in the list. */
  parentKey: string | null;
  name: string;
  /** `client` for a call to the model's API; `internal` for the agent's own work and its tools. */
  kind: 'internal' | 'client';
  startTime: number;
  endTime: number;
  attributes: Record<string, SpanAttributeValue>;
  /** The operation failed: the span's status is ERROR with this message (`error.type` is in the attributes). */
  error?: { type: string; message: string };
}

/** What the trace itself does not say: who the provider is, and the agent's name. */
export interface ThinkSpanOptions {
  /** `gen_ai.provider.name`: `anthropic`, or a `vigil.<kind>` value for the offline and test thinkers. */
  providerName: string;
  /** `gen_ai.agent.name`. */
  agentName: string;
}

/** The `error.type` of a tool call that returned an error (the trace records no class for it). */
export const TOOL_ERROR_TYPE = 'tool_error';

/** The spans of one think: the think first, then each model call followed by the tool calls it asked for. */
export function thinkSpans(trace: ThinkTrace, options: ThinkSpanOptions): SpanDescription[] {
  const conversation = trace.turnIds[0];
  const common: Record<string, SpanAttributeValue> = {
    'gen_ai.provider.name': options.providerName,
    ...(conversation === undefined ? {} : { 'gen_ai.conversation.id': conversation }),
  };
  const thinkKey = `think:${trace.id}`;
  const spans: SpanDescription[] = [
    {
      key: thinkKey,
      parentKey: null,
      name: `invoke_agent ${options.agentName}`,
      kind: 'internal',
      startTime: trace.startedAt,
      endTime: trace.startedAt + trace.durationMs,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        ...common,
        'gen_ai.agent.name': options.agentName,
        'gen_ai.request.model': trace.model,
        ...usageAttributes(trace),
        ...(trace.stopReason === '' ? {} : { 'gen_ai.response.finish_reasons': [trace.stopReason] }),
        ...(trace.error === undefined ? {} : { 'error.type': trace.error.code }),
        'vigil.think.id': trace.id,
        'vigil.think.reason': trace.reason,
        'vigil.turn_ids': trace.turnIds,
        'vigil.cost_usd': trace.costUsd,
      },
      ...(trace.error === undefined ? {} : { error: { type: trace.error.code, message: trace.error.message } }),
    },
  ];
  const callKeys = trace.calls.map((_, index) => `chat:${trace.id}:${index}`);
  const toolsByCall = new Map<number, ToolCallTrace[]>();
  const orphans: ToolCallTrace[] = [];
  for (const tool of trace.toolCalls) {
    const index = requestingCall(trace.calls, tool);
    if (index === -1) orphans.push(tool);
    else toolsByCall.set(index, [...(toolsByCall.get(index) ?? []), tool]);
  }
  trace.calls.forEach((call, index) => {
    spans.push(chatSpan(call, callKeys[index]!, thinkKey, common));
    for (const tool of toolsByCall.get(index) ?? []) spans.push(toolSpan(tool, callKeys[index]!, common));
  });
  // A tool that started before any call ended (clocks disagree, or the thinker ran it itself) hangs off the think.
  for (const tool of orphans) spans.push(toolSpan(tool, thinkKey, common));
  return spans;
}

/**
 * The model call whose tool_use asked for `tool`: the one that ended last at or before the tool started (the model
 * answers, then its tools run, then the next call goes out with their results). -1 when none had ended.
 */
export function requestingCall(calls: readonly ModelCallTrace[], tool: ToolCallTrace): number {
  let found = -1;
  let foundEnd = Number.NEGATIVE_INFINITY;
  calls.forEach((call, index) => {
    const end = call.startedAt + call.durationMs;
    if (end <= tool.startedAt && end >= foundEnd) {
      found = index;
      foundEnd = end;
    }
  });
  return found;
}

function chatSpan(
  call: ModelCallTrace,
  key: string,
  parentKey: string,
  common: Record<string, SpanAttributeValue>,
): SpanDescription {
  return {
    key,
    parentKey,
    name: `chat ${call.model}`,
    kind: 'client',
    startTime: call.startedAt,
    endTime: call.startedAt + call.durationMs,
    attributes: {
      'gen_ai.operation.name': 'chat',
      ...common,
      'gen_ai.request.model': call.model,
      // The model that answered: only a call that got an answer has one.
      ...(call.stopReason === undefined
        ? {}
        : { 'gen_ai.response.model': call.model, 'gen_ai.response.finish_reasons': [call.stopReason] }),
      ...usageAttributes(call),
      ...(call.error === undefined ? {} : { 'error.type': call.error.type }),
      'vigil.retries': call.retries,
      'vigil.cost_usd': call.costUsd,
    },
    ...(call.error === undefined ? {} : { error: { type: call.error.type, message: call.error.message } }),
  };
}

function toolSpan(tool: ToolCallTrace, parentKey: string, common: Record<string, SpanAttributeValue>): SpanDescription {
  return {
    key: `tool:${tool.callId}`,
    parentKey,
    name: `execute_tool ${tool.name}`,
    kind: 'internal',
    startTime: tool.startedAt,
    endTime: tool.startedAt + tool.durationMs,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      ...common,
      'gen_ai.tool.name': tool.name,
      'gen_ai.tool.call.id': tool.callId,
      // MCP tools are extensions the agent reaches over a protocol; Vigil's own tools are functions it runs itself.
      'gen_ai.tool.type': tool.name.startsWith('mcp__') ? 'extension' : 'function',
      'vigil.tool.result_bytes': tool.resultBytes,
      ...(tool.ok ? {} : { 'error.type': TOOL_ERROR_TYPE }),
    },
    ...(tool.ok ? {} : { error: { type: TOOL_ERROR_TYPE, message: `The tool ${tool.name} returned an error.` } }),
  };
}

/**
 * Token usage as the conventions count it: Anthropic's `input_tokens` leaves out cache reads and writes, while
 * `gen_ai.usage.input_tokens` includes them (anthropic.md, notes on the usage attributes).
 */
function usageAttributes(usage: {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}): Record<string, number> {
  return {
    'gen_ai.usage.input_tokens': usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
    'gen_ai.usage.cache_read.input_tokens': usage.cacheReadTokens,
    'gen_ai.usage.cache_creation.input_tokens': usage.cacheWriteTokens,
  };
}
