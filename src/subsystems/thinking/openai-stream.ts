/**
 * A streamed Chat Completion put back together: its chunks (`data:` lines up to `[DONE]`) into the one reply the tool
 * loop reads, its text and each tool call's argument fragments handed on as they arrive (for the reply's text as it
 * is written).
 */
import type OpenAI from 'openai';
import { APIUserAbortError } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
} from 'openai/resources/chat/completions';
import { chatReply, type ChatReply } from './openai-content.js';
import type { CallListener } from './reply-deltas.js';
import { MalformedResponseError } from './think-call-errors.js';
import { estimateTokens } from './token-estimate.js';

interface CallSoFar {
  id: string;
  name: string;
  arguments: string;
}

/** The chunks of one streamed completion, in order. */
export class ChunkAccumulator {
  private content = '';
  private readonly calls = new Map<number, CallSoFar>();
  private finishReason: string | null = null;
  private usage: ChatCompletion['usage'];
  private id = '';
  private model = '';

  constructor(private readonly listener?: CallListener) {}

  /** Takes the next chunk. */
  add(chunk: ChatCompletionChunk): void {
    this.id ||= chunk.id;
    this.model ||= chunk.model;
    if (chunk.usage !== undefined && chunk.usage !== null) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (choice === undefined) return;
    const text = choice.delta?.content ?? '';
    this.content += text;
    if (text !== '') this.listener?.text(0, text);
    for (const part of choice.delta?.tool_calls ?? []) {
      const call = this.calls.get(part.index) ?? { id: '', name: '', arguments: '' };
      call.id ||= part.id ?? '';
      call.name ||= part.function?.name ?? '';
      const fragment = part.function?.arguments ?? '';
      call.arguments += fragment;
      this.calls.set(part.index, call);
      // Handed on even with no arguments yet: the call has begun, so text after it is not streamed as an answer.
      this.listener?.arguments(part.index, call.name, fragment);
    }
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) this.finishReason = choice.finish_reason;
  }

  /**
   * The whole reply. A stream that ended without a finish reason was cut short and is malformed (retried by a later
   * beat, charging nothing). A server that sent no usage chunk (it ignored `stream_options`) is charged the
   * conservative estimate of what was sent and received: never nothing.
   */
  reply(sentBody: unknown): ChatReply {
    if (this.finishReason === null) throw new MalformedResponseError('the stream ended before a finish_reason');
    const calls = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    const toolCalls = calls.map((call) => ({
      id: call.id,
      type: 'function' as const,
      function: { name: call.name, arguments: call.arguments },
    }));
    const usage = this.usage ?? {
      prompt_tokens: estimateTokens(JSON.stringify(sentBody)),
      completion_tokens: estimateTokens(this.content + calls.map((call) => call.name + call.arguments).join('')),
      total_tokens: 0,
    };
    return chatReply({
      id: this.id,
      object: 'chat.completion',
      created: 0,
      model: this.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: this.content === '' ? null : this.content,
            refusal: null,
            ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
          },
          finish_reason: this.finishReason as ChatCompletion.Choice['finish_reason'],
          logprobs: null,
        },
      ],
      usage,
    });
  }
}

/** One call streamed: the same request with `stream: true` (and the usage chunk asked for), put back together. */
export async function streamedCompletion(
  client: OpenAI,
  body: ChatCompletionCreateParamsNonStreaming,
  signal: AbortSignal,
  listener: CallListener,
): Promise<ChatReply> {
  const stream = await client.chat.completions.create(
    { ...body, stream: true, stream_options: { include_usage: true } },
    { signal },
  );
  const chunks = new ChunkAccumulator(listener);
  for await (const chunk of stream) chunks.add(chunk);
  // The SDK ends an aborted stream's iteration quietly: what arrived is not a reply.
  if (signal.aborted) throw new APIUserAbortError();
  return chunks.reply(body);
}
