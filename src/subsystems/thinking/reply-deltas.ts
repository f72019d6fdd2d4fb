/**
 * Which streamed fragments become `agent.reply_delta`: the arguments of the model's `reply` tool calls, read as they
 * arrive (reply-text-stream.ts), whatever the provider streams them in (Chat Completions' tool-call chunks, Messages'
 * `input_json_delta`).
 */
import { ReplyTextStream } from './reply-text-stream.js';
import type { ReplyStream } from './thinker.js';

/** Hears each fragment of a tool call's arguments, with the call's position in the reply and its name (as sent). */
export type ArgumentsListener = (index: number, name: string, fragment: string) => void;

/**
 * The listener that streams the text of each `reply` call of one model call to `stream`, for the turns this think
 * may answer only (a call naming another turn is refused when it is applied, so none of its text goes out).
 */
export function replyDeltas(
  stream: ReplyStream,
  turnIds: readonly string[],
  toolName: (wire: string) => string = (wire) => wire,
): ArgumentsListener {
  const replies = new Map<number, ReplyTextStream>();
  return (index, name, fragment) => {
    if (toolName(name) !== 'reply') return;
    const reply = replies.get(index) ?? new ReplyTextStream();
    replies.set(index, reply);
    const piece = reply.push(fragment);
    if (piece !== null && turnIds.includes(piece.turnId)) stream.delta(piece.turnId, piece.text);
  };
}
