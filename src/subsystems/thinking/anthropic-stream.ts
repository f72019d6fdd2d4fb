/**
 * One Messages call streamed: the SDK's MessageStream puts the message back together (content blocks, tool inputs
 * from their `input_json_delta`s, usage with the cache counts, stop_reason), and the text and each tool call's input
 * fragments are handed on as they arrive, for the reply's text as it is written.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { AnthropicError, APIConnectionError, APIError } from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { StreamStalledError } from './buffered-fetch.js';
import type { CallListener } from './reply-deltas.js';
import { MalformedResponseError } from './think-call-errors.js';

/**
 * The same request as `create` makes, with `stream: true`; resolves with the whole message only once `message_stop`
 * arrived. A stream that failed or ended early rejects (nothing of it is a reply); the SDK has retried the request
 * itself (429, 5xx, 529) before the stream began, as for a whole reply.
 */
export async function streamedMessage(
  client: Anthropic,
  body: MessageCreateParamsNonStreaming,
  signal: AbortSignal,
  listener: CallListener,
): Promise<Message> {
  const stream = client.messages.stream(body, { signal });
  stream.on('streamEvent', (event, snapshot) => {
    // A tool call is known to begin at its block's start, before any of its input: text after it is not streamed.
    if (event.type === 'content_block_start' && event.content_block.type === 'tool_use')
      listener.arguments(event.index, event.content_block.name, '');
    if (event.type !== 'content_block_delta') return;
    if (event.delta.type === 'text_delta') listener.text(event.index, event.delta.text);
    const block = snapshot.content[event.index];
    if (event.delta.type === 'input_json_delta' && block?.type === 'tool_use' && event.delta.partial_json !== '')
      listener.arguments(event.index, block.name, event.delta.partial_json);
  });
  try {
    await stream.done();
  } catch (err) {
    throw unwrapped(err);
  }
  // A stream that closed cleanly before message_stop (a proxy cutting it) was cut short: it is not a message.
  if (stream.receivedMessages.length === 0) throw new MalformedResponseError('the stream ended before message_stop');
  return stream.finalMessage();
}

/**
 * The failure as the error classification must see it. MessageStream wraps what is not the SDK's own error in a plain
 * AnthropicError with the original as its cause: a stalled body (StreamStalledError) and an unparsable event
 * (SyntaxError) are given back as such; anything else broke the stream off mid-reply (undici's "terminated" when the
 * connection drops), which is the connection failing, as it would be before the headers.
 */
function unwrapped(err: unknown): unknown {
  if (!(err instanceof AnthropicError) || err instanceof APIError || !(err.cause instanceof Error)) return err;
  const cause = err.cause;
  if (cause instanceof StreamStalledError || cause instanceof SyntaxError) return cause;
  return new APIConnectionError({ message: `the streamed reply broke off: ${cause.message}`, cause });
}
