/** The think traces as terminal text for `vigil thinks`: one line per think, and one think in full. Pure. */
import type {
  ModelCallTrace,
  ThinkTrace,
  ThinkTraceSummary,
  ToolCallTrace,
} from '../../protocol/think-trace.schema.js';

/** The share of the prompt's tokens read from the cache (0 to 1); null when the think sent no prompt. */
export function cacheRatio(
  think: Pick<ThinkTraceSummary, 'inputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'>,
): number | null {
  const prompt = think.inputTokens + think.cacheReadTokens + think.cacheWriteTokens;
  return prompt === 0 ? null : think.cacheReadTokens / prompt;
}

const usd = (value: number) => `$${value.toFixed(value > 0 && value < 0.01 ? 6 : 4)}`;
const ms = (value: number) => (value >= 1000 ? `${(value / 1000).toFixed(2)}s` : `${Math.round(value)}ms`);
const pct = (ratio: number | null) => (ratio === null ? '-' : `${Math.round(ratio * 100)}%`);
const iso = (epochMs: number) => new Date(epochMs).toISOString();
// Model and server text is not ours: no control character of it reaches the operator's terminal.
const clean = (text: string) => text.replace(/\p{Cc}/gu, ' ');

/** One think as one tab-separated line: id, start, reason, model, duration, calls, tool calls, tokens in/out, cache ratio, cost, stop. */
export function formatThinkLine(think: ThinkTraceSummary): string {
  const stop = think.error === undefined ? think.stopReason : `${think.stopReason} ${think.error.code}`;
  return [
    think.id,
    iso(think.startedAt),
    think.reason,
    clean(think.model),
    ms(think.durationMs),
    `${think.calls.length} calls`,
    `${think.toolCalls.length} tools`,
    `${think.inputTokens + think.cacheReadTokens + think.cacheWriteTokens}/${think.outputTokens} tok`,
    `cache ${pct(cacheRatio(think))}`,
    usd(think.costUsd),
    clean(stop),
  ].join('\t');
}

function callLine(call: ModelCallTrace, index: number): string {
  const outcome =
    call.error === undefined ? (call.stopReason ?? '-') : `error ${call.error.type}: ${call.error.message}`;
  const tokens = `in ${call.inputTokens} out ${call.outputTokens} cache read ${call.cacheReadTokens} write ${call.cacheWriteTokens}`;
  return `  #${index + 1} ${iso(call.startedAt)} ${ms(call.durationMs)} ${tokens} ${usd(call.costUsd)} retries ${call.retries} ${clean(outcome)}`;
}

function toolLine(call: ToolCallTrace): string {
  return `  ${clean(call.name)} ${call.ok ? 'ok' : 'failed'} ${ms(call.durationMs)} ${call.resultBytes} B ${call.callId}`;
}

/** One think in full: the summary, each model call, each tool call, each section with its tokens (and its text when kept). */
export function formatThink(think: ThinkTrace): string {
  const lines = [
    `think ${think.id}`,
    `  reason ${think.reason}, turns ${think.turnIds.join(', ') || '-'}`,
    `  model ${clean(think.model)}, started ${iso(think.startedAt)}, took ${ms(think.durationMs)}, stop ${clean(think.stopReason)}`,
    `  tokens in ${think.inputTokens} out ${think.outputTokens} cache read ${think.cacheReadTokens} write ${think.cacheWriteTokens} (cache ${pct(cacheRatio(think))}), cost ${usd(think.costUsd)}`,
    ...(think.error === undefined ? [] : [`  error ${think.error.code}: ${clean(think.error.message)}`]),
    `model calls (${think.calls.length})`,
    ...think.calls.map(callLine),
    `tool calls (${think.toolCalls.length})`,
    ...think.toolCalls.map(toolLine),
    `prompt sections (${think.sections.reduce((sum, s) => sum + s.tokens, 0)} tokens)`,
    ...think.sections.map((s) => `  ${clean(s.name)} ${s.tokens} tokens${s.cached === true ? ' (cached)' : ''}`),
  ];
  if (think.content !== undefined) {
    lines.push('content');
    if (think.content.system !== undefined) lines.push('  [system]', indent(think.content.system));
    for (const message of think.content.messages) lines.push(`  [${clean(message.role)}]`, indent(message.text));
  }
  return lines.join('\n');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line.replace(/(?![\t\n])\p{Cc}/gu, ' ')}`)
    .join('\n');
}
