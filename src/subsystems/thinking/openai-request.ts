/**
 * The OpenAI-compatible thinker's requests: one system message (identity, standing instructions, then the rolling
 * summary, so the stable part leads and OpenAI's automatic prefix cache can read it), the state as the first user
 * message, and what the tool loop appended; bounded like every think (bounded-prompt.ts).
 */
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { PromptSectionTrace } from '../../protocol/think-trace.schema.js';
import { fitRequest, type FittedRequest } from './bounded-prompt.js';
import {
  STANDING_INSTRUCTIONS,
  SUB_AGENT_INSTRUCTIONS,
  SUB_AGENT_WITH_TOOLS_INSTRUCTIONS,
} from './think-instructions.js';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { messageText } from './prompt-sections.js';
import type { ThinkInput } from './thinker.schema.js';
import type { TokenCalibration } from './token-calibration.js';

/** A request without the model and its output cap, which every call shares. */
export type ChatParams = Omit<ChatCompletionCreateParamsNonStreaming, 'model' | 'max_tokens' | 'max_completion_tokens'>;

/** The system prompt's parts in order: the identity (absent when empty) and the instructions. */
export function systemParts(
  identity: string,
  kind: 'think' | 'task' | 'task-with-tools',
): { name: string; text: string }[] {
  const head = identity.trim() === '' ? [] : [{ name: 'identity', text: identity }];
  const task =
    kind === 'think'
      ? []
      : [
          {
            name: 'sub_agent',
            text: kind === 'task-with-tools' ? SUB_AGENT_WITH_TOOLS_INSTRUCTIONS : SUB_AGENT_INSTRUCTIONS,
          },
        ];
  return [...head, { name: 'instructions', text: STANDING_INSTRUCTIONS }, ...task];
}

/** The system message's text: its parts, then the summary when there is one (it changes more often than they do). */
export function systemText(parts: readonly { text: string }[], summary: string | null = null): string {
  return [...parts.map((p) => p.text), ...(summary === null ? [] : [summary])].join('\n\n');
}

/** What a think's bounded request is built from besides the input. */
export interface ChatRequestParts {
  readonly system: readonly { name: string; text: string }[];
  readonly tools: readonly ChatCompletionFunctionTool[];
  /** What the tool loop appended after the first user message. */
  readonly tail: readonly ChatCompletionMessageParam[];
  /** VIGIL_CONTEXT_TOKENS. */
  readonly bound: number;
  /** The whole request body as the SDK sends it, for the bound's measure. */
  body(params: ChatParams): unknown;
}

/** The request for one call of the tool loop under the bound; throws CONTEXT_TOO_SMALL when it cannot fit. */
export function boundedChatParams(
  input: ThinkInput,
  parts: ChatRequestParts,
  calibration: TokenCalibration,
): FittedRequest<ChatParams> {
  const { tools, tail } = parts;
  const request = (system: string, user: string): ChatParams => ({
    messages: [{ role: 'system', content: system }, { role: 'user', content: user }, ...tail],
    tools: [...tools],
  });
  return fitRequest<ChatParams>(input, parts.bound, calibration, {
    frame: () => request(systemText(parts.system), ''),
    // The conversation's entries lead the user message oldest first, so the text shared with the last think is its prefix.
    assemble: (built) => request(systemText(parts.system, built.summary), built.conversation.join('') + built.state),
    body: (params) => parts.body(params),
  });
}

/** The prompt's sections for the think trace: the stable prefix's parts, then the builder's. */
export function chatSectionTrace(parts: ChatRequestParts, request: FittedRequest<ChatParams>): PromptSectionTrace[] {
  const { built, counter } = request;
  return [
    // With the text of each (the tracer keeps it only under VIGIL_TRACE_CONTENT=true).
    { name: 'tools', tokens: counter.countJson(parts.tools), cached: true, text: JSON.stringify(parts.tools) },
    ...parts.system.map((part) => ({
      name: part.name,
      tokens: counter.count(part.text),
      cached: true,
      text: part.text,
    })),
    ...built.sections,
  ];
}

/** A Messages request (the rolling summary's, built once for every provider) as Chat Completions messages. */
export function chatMessagesOf(
  params: Pick<MessageCreateParamsNonStreaming, 'system' | 'messages'>,
): ChatCompletionMessageParam[] {
  const system =
    params.system === undefined
      ? []
      : [
          {
            role: 'system' as const,
            content: typeof params.system === 'string' ? params.system : params.system.map((b) => b.text).join('\n\n'),
          },
        ];
  const messages = params.messages.map((m) => ({
    role: 'user' as const,
    content: typeof m.content === 'string' ? m.content : messageText(m.content),
  }));
  return [...system, ...messages];
}
