/**
 * A model call's own text (written outside any tool call) read as it streams, pure: fragments in, the new text that
 * may go out now. What has gone out is always the start of the text as a plain-text reply carries it (trimmed, its
 * text blocks joined by a newline, as `textOf` and `replyText` read a whole call), so a reply that streamed never has
 * to take a piece back: leading whitespace is skipped, and trailing whitespace (a block's joining newline included)
 * is held back until text follows it, since the reply's trim would drop it if nothing did.
 */

const TRAILING_SPACE = /\s+$/;

/** One call's plain text as it arrives. */
export class PlainTextStream {
  private shownText = '';
  /** Whitespace that arrived after the last text given out: given out only once more text follows it. */
  private held = '';
  private block: number | undefined;

  /** All the text given out so far: the reply this call's text makes, if it ended here (trailing space dropped). */
  get shown(): string {
    return this.shownText;
  }

  /** Takes the next fragment of text block `block`; returns the text to give out now ('' for none). */
  push(block: number, fragment: string): string {
    // A new text block (Anthropic's blocks come one after another) joins the text with a newline.
    if (this.block !== undefined && block !== this.block) this.held += '\n';
    this.block = block;
    const pending = this.held + fragment;
    const trailing = TRAILING_SPACE.exec(pending)?.[0] ?? '';
    let out = pending.slice(0, pending.length - trailing.length);
    this.held = trailing;
    if (this.shownText === '') out = out.trimStart();
    this.shownText += out;
    return out;
  }
}
