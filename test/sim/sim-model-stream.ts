/**
 * The simulated model's answer as the Messages API streams it (`stream: true`): the same message as server-sent
 * events, its text and each tool call's input cut into a few deltas that arrive over simulated time, so a reply is
 * written into a chat while it streams and a crash can fall in the middle of it. The thinker asks for a stream only
 * while someone listens to reply pieces (a chat channel does), so seeds without one never see this.
 */
import type { SimWorldClock } from './sim-clock.js';

/** Simulated ms between two slices of a stream. */
const SLICE_MS = 300;
/** Deltas a block's text (or a tool call's input) is cut into. */
const PIECES = 3;

/** A content block of the simulated model's message. */
type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

/** The message the model answers, as `sim-model.ts` builds it. */
export interface StreamedMessage {
  id: string;
  model: string;
  content: Block[];
  stop_reason: string;
  usage: Record<string, number>;
}

/** A stream in flight: `stop` ends it with an error (the request was aborted, or its process is gone). */
export interface SimStream {
  body: ReadableStream<Uint8Array>;
  stop(err: unknown): void;
}

/** `message` as an event stream whose slices arrive `SLICE_MS` apart in simulated time; `done` once it ends. */
export function streamOf(message: StreamedMessage, world: SimWorldClock, done: () => void): SimStream {
  const slices = slicesOf(message);
  const encoder = new TextEncoder();
  let timer: unknown;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let over = false;
  const finish = () => {
    over = true;
    if (timer !== undefined) world.clearTimeout(timer);
    timer = undefined;
    done();
  };
  const push = (index: number) => {
    timer = undefined;
    if (over) return;
    controller.enqueue(encoder.encode(slices[index]));
    if (index + 1 < slices.length) timer = world.setTimeout(() => push(index + 1), SLICE_MS);
    else {
      controller.close();
      finish();
    }
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      push(0);
    },
  });
  return {
    body,
    stop(err) {
      if (over) return;
      finish();
      controller.error(err);
    },
  };
}

/** The message's events, grouped into slices: the start with the first deltas, then the rest, then the end. */
function slicesOf(message: StreamedMessage): string[] {
  const { usage } = message;
  const start = sse('message_start', {
    type: 'message_start',
    message: {
      id: message.id,
      type: 'message',
      role: 'assistant',
      model: message.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  // Piece i of every block goes in slice i: the blocks advance side by side, as a model writes them in order.
  const slices: string[] = Array.from({ length: PIECES }, () => '');
  slices[0] = start;
  message.content.forEach((block, index) => {
    const opening =
      block.type === 'text'
        ? { type: 'text', text: '' }
        : { type: 'tool_use', id: block.id, name: block.name, input: {} };
    const whole = block.type === 'text' ? block.text : JSON.stringify(block.input);
    const pieces = cut(whole, PIECES);
    pieces.forEach((piece, i) => {
      const head =
        i === 0 ? sse('content_block_start', { type: 'content_block_start', index, content_block: opening }) : '';
      const delta =
        block.type === 'text' ? { type: 'text_delta', text: piece } : { type: 'input_json_delta', partial_json: piece };
      const tail = i === pieces.length - 1 ? sse('content_block_stop', { type: 'content_block_stop', index }) : '';
      slices[i] += head + sse('content_block_delta', { type: 'content_block_delta', index, delta }) + tail;
    });
  });
  slices[PIECES - 1] +=
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens ?? 1 },
    }) + sse('message_stop', { type: 'message_stop' });
  return slices.filter((slice) => slice !== '');
}

/** `text` in `count` pieces (the last ones empty when it is short). */
function cut(text: string, count: number): string[] {
  const size = Math.ceil(text.length / count);
  return Array.from({ length: count }, (_, i) => text.slice(i * size, (i + 1) * size));
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
