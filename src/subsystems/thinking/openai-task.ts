/** A sub-agent task's conversation over Chat Completions (task-tool-loop.ts): the think's tools and system first, for the prefix cache. */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { replyText, replyToolUses, toolMessage, type ChatReply } from './openai-content.js';
import type { ChatParams } from './openai-request.js';
import { systemParts, systemText } from './openai-request.js';
import type { OpenAiToolSet } from './openai-tools.js';
import type { TaskConversation } from './task-tool-loop.js';
import { taskMessage } from './think-instructions.js';
import type { SwarmTaskInput, TokenUsage } from './thinker.schema.js';

/** What the conversation needs from the thinker. */
export interface ChatTaskDeps {
  /** One call; a failure rejects carrying `partial()` (what was spent) in its data. */
  create(params: ChatParams, signal: AbortSignal, what: string, partial: () => unknown): Promise<ChatReply>;
  /** The think's tools, sent whole so the request starts as the thinks' do. */
  toolSet: OpenAiToolSet;
  /** Judges a call's usage (the implausible-usage check) and returns it. */
  observe(usage: TokenUsage): TokenUsage;
}

/** The task's conversation: its message naming `own` tools (by the names the model sees), each reply sent back with its results. */
export function chatTaskConversation(
  deps: ChatTaskDeps,
  input: SwarmTaskInput,
  own: readonly string[],
): TaskConversation<ChatReply> {
  const { toolSet } = deps;
  const system = systemText(systemParts(input.identity, own.length > 0 ? 'task-with-tools' : 'task'));
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: system },
    {
      role: 'user',
      content: taskMessage(
        input.prompt,
        own.map((name) => toolSet.wireName(name)),
      ),
    },
  ];
  return {
    // No tools of its own: it may call none (the listed ones are the think's, sent for the shared prefix).
    call: (signal, what, partial) =>
      deps.create(
        { messages, tools: [...toolSet.tools], ...(own.length === 0 ? { tool_choice: 'none' as const } : {}) },
        signal,
        what,
        partial,
      ),
    usage: (reply) => deps.observe(reply.usage),
    text: replyText,
    toolUses: (reply) => replyToolUses(reply, toolSet.toolName),
    wantsTools: (reply) => reply.stop_reason === 'tool_calls',
    append: (reply, answers) => void messages.push(assistantTurn(reply), ...answers.map(toolMessage)),
  };
}

/** The assistant turn as it goes back: its text and its tool calls as they came, so each tool message answers one. */
export function assistantTurn(reply: ChatReply): ChatCompletionMessageParam {
  const calls = reply.message.tool_calls ?? [];
  return {
    role: 'assistant',
    content: reply.message.content ?? null,
    ...(calls.length === 0 ? {} : { tool_calls: calls }),
  };
}
