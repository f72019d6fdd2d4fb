/**
 * Which streamed fragments of a think become `agent.reply_delta`: the arguments of the model's `reply` tool calls,
 * read as they arrive (reply-text-stream.ts), and the model's own text when the think may answer with it
 * (plain-text-stream.ts), whatever the provider streams them in (Chat Completions' chunks, Messages' deltas).
 *
 * The promise to a subscriber (CONTRACT §13): what it is given for a turn is the start of that turn's final
 * `agent.reply`, never a piece the reply does not contain. A reply tool call's text is the reply as written. The
 * model's own text is the harder case: a model may write text and then call a tool in the same call, and no client
 * can take back a piece it was given. So the rule for what such text is does not wait for the think to end
 * (think-session.ts, `ThinkSession.answeredInText`): in a think that may answer in plain text, a call's text before
 * its first tool call is a reply to its turn, whatever the tool calls after it do, streamed or not (the result never
 * depends on who watches). That text, and only that, is streamed here, as the call's `plainTurn`; text after a tool
 * call began in its call is not (that call may be a reply, after which the think's text is not its answer). The one
 * exception: a tool call left waiting for an operator keeps its turn open, so the think's text is no reply after all;
 * what streamed of it stays a draft the turn's later reply replaces (clients show a draft the reply does not
 * continue as broken off), as with a think that fails mid-reply.
 */
import { PlainTextStream } from './plain-text-stream.js';
import { ReplyTextStream } from './reply-text-stream.js';
import type { ReplyStream } from './thinker.js';

/** What one streamed model call hands on as it arrives. */
export interface CallListener {
  /** A fragment of the model's own text; `block` numbers its text block (a new number starts a new block). */
  text(block: number, fragment: string): void;
  /** A fragment of tool call `index`'s arguments, with its name as sent; '' as the call begins. */
  arguments(index: number, name: string, fragment: string): void;
}

/** Where the pieces of one reply part (one `reply` call, or one call's text) go: its turn's deltas. */
type PartSink = (piece: string) => void;

/**
 * One think's reply deltas, per turn. A turn answered in several parts (two reply calls, or text and then a reply
 * call) gets them joined by a blank line in its final reply (settle-think.ts), so a part after the first is given
 * out with that blank line before its first piece: what went out stays the start of the final text.
 */
export class ThinkDeltas {
  private readonly answered = new Set<string>();

  constructor(
    private readonly stream: ReplyStream | undefined,
    /** The turns this think may answer: a reply call naming another is refused when applied, so none of it goes out. */
    private readonly turnIds: readonly string[],
    private readonly toolName: (wire: string) => string = (wire) => wire,
  ) {}

  /**
   * The listener for the think's next model call, streamed while someone watches (undefined: ask for a whole reply,
   * the same message). `plainTurn` is the turn the call's own text answers (`ThinkSession.plainTextTurn`; null: none).
   */
  nextCall(plainTurn: string | null): CallDeltas | undefined {
    if (this.stream?.wanted() !== true) return undefined;
    return new CallDeltas(plainTurn, this.turnIds, this.toolName, (turnId) => this.part(turnId));
  }

  private part(turnId: string): PartSink {
    const stream = this.stream!;
    let started = false;
    return (piece) => {
      if (piece === '') return;
      const joined = !started && this.answered.has(turnId) ? `\n\n${piece}` : piece;
      started = true;
      this.answered.add(turnId);
      stream.delta(turnId, joined);
    };
  }
}

/** One model call's listener: its `reply` calls' text, and its own text before its first tool call when it answers. */
export class CallDeltas implements CallListener {
  private readonly replies = new Map<number, { text: ReplyTextStream; sink?: PartSink }>();
  private readonly plain = new PlainTextStream();
  private plainSink: PartSink | undefined;
  private toolCallBegun = false;

  constructor(
    private readonly plainTurn: string | null,
    private readonly turnIds: readonly string[],
    private readonly toolName: (wire: string) => string,
    private readonly part: (turnId: string) => PartSink,
  ) {}

  text(block: number, fragment: string): void {
    // Text after a tool call began is not the call's answer (`answeredInText` takes the text before it).
    // An empty fragment is no text: it must not start a block (whose joining newline the reply would not have).
    if (this.plainTurn === null || this.toolCallBegun || fragment === '') return;
    const piece = this.plain.push(block, fragment);
    if (piece === '') return;
    this.plainSink ??= this.part(this.plainTurn);
    this.plainSink(piece);
  }

  arguments(index: number, name: string, fragment: string): void {
    this.toolCallBegun = true;
    if (this.toolName(name) !== 'reply' || fragment === '') return;
    const reply = this.replies.get(index) ?? { text: new ReplyTextStream() };
    this.replies.set(index, reply);
    const piece = reply.text.push(fragment);
    if (piece === null || !this.turnIds.includes(piece.turnId)) return;
    reply.sink ??= this.part(piece.turnId);
    reply.sink(piece.text);
  }
}
