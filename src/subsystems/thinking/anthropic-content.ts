/** Messages API content as Vigil uses it: usage as token counts, a response's text, an MCP result as a tool_result block. */
import type { ContentBlock, ToolResultBlockParam, Usage } from '@anthropic-ai/sdk/resources/messages';
import type { ExternalToolResult } from './think-tools.js';
import type { ToolAnswer } from './think-tool-loop.js';
import type { TokenUsage } from './thinker.schema.js';

export { sumUsage } from './token-usage.js';

/** A Messages API usage object as Vigil's token usage; absent cache counts are zero. */
export function tokenUsage(usage: Usage | undefined): TokenUsage {
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheWriteTokens: usage?.cache_creation_input_tokens ?? 0,
    cacheReadTokens: usage?.cache_read_input_tokens ?? 0,
  };
}

/** A response's text blocks joined, trimmed. */
export function textOf(content: readonly ContentBlock[]): string {
  return content
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('\n')
    .trim();
}

/**
 * The text a response wrote before its first tool call: its non-empty text blocks up to there, joined by a newline,
 * trimmed. What a streamed call gives out of its text is the start of this (plain-text-stream.ts reads blocks alike).
 */
export function textBeforeTools(content: readonly ContentBlock[]): string {
  const firstTool = content.findIndex((block) => block.type === 'tool_use');
  return textOf(
    content.slice(0, firstTool === -1 ? content.length : firstTool).filter((b) => b.type !== 'text' || b.text !== ''),
  );
}

/** An MCP tool's result as a tool_result block: text, and images the API accepts as images. */
export function externalResult(toolUseId: string, result: ExternalToolResult): ToolResultBlockParam {
  const content = result.content.map((part) =>
    part.type === 'text'
      ? { type: 'text' as const, text: part.text === '' ? '(empty)' : part.text }
      : {
          type: 'image' as const,
          source: {
            type: 'base64' as const,
            data: part.data,
            media_type: part.mimeType as 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp',
          },
        },
  );
  return { type: 'tool_result', tool_use_id: toolUseId, content, ...(result.isError ? { is_error: true } : {}) };
}

/** A tool call's answer as the tool_result block sent back: an MCP result with its parts, a plain text as a string. */
export function toolResultBlock(answer: ToolAnswer): ToolResultBlockParam {
  if (answer.kind === 'external') return externalResult(answer.toolUseId, answer.result);
  return {
    type: 'tool_result',
    tool_use_id: answer.toolUseId,
    content: answer.text,
    ...(answer.isError ? { is_error: true } : {}),
  };
}
