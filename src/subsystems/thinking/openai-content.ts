/** Chat Completions content as Vigil uses it: a completion as a reply (text, tool calls, usage), tool answers as tool messages. */
import type {
  ChatCompletion,
  ChatCompletionMessage,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { MalformedResponseError } from './think-call-errors.js';
import type { ExternalToolResult } from './think-tools.js';
import type { ToolAnswer, ToolUse } from './think-tool-loop.js';
import type { TokenUsage } from './thinker.schema.js';
import { messageText } from './prompt-sections.js';

/** One model call's answer: the assistant message, why it stopped, and what it cost in tokens. */
export interface ChatReply {
  readonly message: ChatCompletionMessage;
  /** `finish_reason` (`stop`, `tool_calls`, `length`, …), under the name the call trace reads. */
  readonly stop_reason: string;
  readonly usage: TokenUsage;
}

/**
 * A usage report as Vigil's token usage. `prompt_tokens` counts the cached tokens too: the rest is fresh input.
 * Chat Completions reports no cache writes (OpenAI's cache is automatic and writing it is not billed).
 */
export function chatUsage(usage: CompletionUsage | null | undefined): TokenUsage {
  const prompt = usage?.prompt_tokens ?? 0;
  const cached = Math.min(prompt, usage?.prompt_tokens_details?.cached_tokens ?? 0);
  return {
    inputTokens: prompt - cached,
    outputTokens: usage?.completion_tokens ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}

/** The completion's first choice as a reply; a body without one is malformed (its usage is not trusted). */
export function chatReply(completion: ChatCompletion): ChatReply {
  const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
  if (choice?.message === undefined || choice.message === null)
    throw new MalformedResponseError('the response has no choices[0].message');
  // A server that sent tool calls may still say `stop` (some local ones do): the calls decide.
  const calls = choice.message.tool_calls ?? [];
  const stop = calls.length > 0 && choice.finish_reason !== 'length' ? 'tool_calls' : (choice.finish_reason ?? 'stop');
  return { message: choice.message, stop_reason: stop, usage: chatUsage(completion.usage) };
}

/** The reply's text, trimmed ('' for none). */
export function replyText(reply: ChatReply): string {
  return (reply.message.content ?? '').trim();
}

/**
 * The reply's function calls as tool uses, names mapped back to the tools they were sent for. Arguments that are not
 * a JSON object make a use that is answered with why, never run.
 */
export function replyToolUses(reply: ChatReply, toolName: (wire: string) => string): ToolUse[] {
  return (reply.message.tool_calls ?? []).flatMap((call): ToolUse[] => {
    if (call.type !== 'function') return [];
    const name = toolName(call.function.name);
    const raw = call.function.arguments.trim();
    try {
      // No arguments at all is how some servers send a call of a tool that takes none.
      const input: unknown = raw === '' ? {} : JSON.parse(raw);
      if (input !== null && typeof input === 'object' && !Array.isArray(input))
        return [{ id: call.id, name, input: withToolNames(name, input, toolName) }];
    } catch {
      // Reported below like any other argument that is not an object.
    }
    const invalid = `The arguments of ${name} must be one JSON object; got ${JSON.stringify(raw.slice(0, 200))}. The call was not made.`;
    return [{ id: call.id, name, input: raw, invalid }];
  });
}

/** spawn_task names the tools it gives a task as the model saw them: they are mapped back like a call's own name. */
function withToolNames(name: string, input: object, toolName: (wire: string) => string): object {
  const tools = (input as { tools?: unknown }).tools;
  if (name !== 'spawn_task' || !Array.isArray(tools)) return input;
  return { ...input, tools: tools.map((t: unknown) => (typeof t === 'string' ? toolName(t) : t)) };
}

/** The reply as the trace's transcript shows it: its text, then one line per tool call. */
export function replyTranscript(reply: ChatReply, toolName: (wire: string) => string): string {
  const text = reply.message.content ?? '';
  const uses = replyToolUses(reply, toolName).map((use) => ({ type: 'tool_use', name: use.name, input: use.input }));
  return messageText([...(text === '' ? [] : [{ type: 'text', text }]), ...uses]);
}

/** An MCP result as a tool message's text: Chat Completions takes no images in tool results, so each is named instead. */
function externalText(result: ExternalToolResult): string {
  const parts = result.content.map((part) =>
    part.type === 'text'
      ? part.text
      : `[an image (${part.mimeType}, ${part.data.length} base64 characters) the model API cannot be shown]`,
  );
  return parts.join('\n');
}

/** A tool call's answer as the tool message sent back; an error says so in words, the message having no error flag. */
export function toolMessage(answer: ToolAnswer): ChatCompletionToolMessageParam {
  const [text, isError] =
    answer.kind === 'external' ? [externalText(answer.result), answer.result.isError] : [answer.text, answer.isError];
  const shown = text === '' ? '(empty)' : text;
  return { role: 'tool', tool_call_id: answer.toolUseId, content: isError ? `Error: ${shown}` : shown };
}
