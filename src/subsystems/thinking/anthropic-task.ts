/** A sub-agent task's conversation with Claude (task-tool-loop.ts): Messages requests under the think's cached prefix. */
import type { Message, MessageParam, TextBlockParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import type { CallParams } from './anthropic-bounded-request.js';
import { textOf, tokenUsage, toolResultBlock } from './anthropic-content.js';
import { taskMessage } from './think-instructions.js';
import type { TaskConversation } from './task-tool-loop.js';
import type { SwarmTaskInput, TokenUsage } from './thinker.schema.js';

/** What the conversation needs from the Anthropic thinker. */
export interface AnthropicTaskDeps {
  /** One Messages call; a failure rejects carrying `partial()` (what was spent) in its data. */
  create(params: CallParams, signal: AbortSignal, what: string, partial: () => unknown): Promise<Message>;
  /**
   * The request's cached prefix: the think's own tools and system blocks, the sub-agent instruction after them; and
   * `observe`, which judges each call's cache use and returns its usage.
   */
  cachedParts(withTools: boolean): {
    tools: readonly Tool[];
    system: readonly TextBlockParam[];
    observe: (usage: TokenUsage) => TokenUsage;
  };
}

/** The task's conversation: its message naming `own` tools, each assistant turn sent back verbatim with its results. */
export function anthropicTaskConversation(
  deps: AnthropicTaskDeps,
  input: SwarmTaskInput,
  own: readonly string[],
): TaskConversation<Message> {
  const { tools, system, observe } = deps.cachedParts(own.length > 0);
  const messages: MessageParam[] = [{ role: 'user', content: taskMessage(input.prompt, own) }];
  return {
    // No tools of its own: it may call none (the listed ones are the think's, sent for the shared cache).
    call: (signal, what, partial) =>
      deps.create(
        {
          system: [...system],
          tools: [...tools],
          ...(own.length === 0 ? { tool_choice: { type: 'none' as const } } : {}),
          messages,
        },
        signal,
        what,
        partial,
      ),
    usage: (reply) => observe(tokenUsage(reply.usage)),
    text: (reply) => textOf(reply.content),
    toolUses: (reply) => reply.content.flatMap((block) => (block.type === 'tool_use' ? [block] : [])),
    wantsTools: (reply) => reply.stop_reason === 'tool_use',
    // The assistant turn goes back verbatim, followed by one result per tool_use.
    append: (reply, answers) =>
      void messages.push(
        { role: 'assistant', content: reply.content },
        { role: 'user', content: answers.map(toolResultBlock) },
      ),
  };
}
