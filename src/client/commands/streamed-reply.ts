/**
 * What `vigil send` prints of a reply streamed to a terminal, pure: each piece as it comes, then only what the final
 * `agent.reply` adds, so the reply is never printed twice. A streamed draft the final text does not continue (its
 * think failed mid-reply and a later one answered) is left as it is, and the final text follows whole on a new line.
 */

/** What to print, in order: on stdout, or a note on stderr. */
export type Printed = readonly { to: 'stdout' | 'stderr'; text: string }[];

/** One turn's reply as it streams. */
export class StreamedReply {
  private shown = '';
  /** Whether the last line printed is still open (no newline after it yet). */
  private lineOpen = false;

  /** The next piece (`agent.reply_delta`): printed as it is. */
  piece(text: string): string {
    this.shown += text;
    this.lineOpen = !this.shown.endsWith('\n');
    return text;
  }

  /** The final reply: what it adds to what was shown, ended by a newline. */
  final(text: string): Printed {
    const open = this.lineOpen;
    this.lineOpen = false;
    if (text.startsWith(this.shown)) return [{ to: 'stdout', text: `${text.slice(this.shown.length)}\n` }];
    const note = 'vigil: the reply streamed above broke off; the whole reply follows.\n';
    return [
      ...(open ? [{ to: 'stdout', text: '\n' } as const] : []),
      { to: 'stderr', text: note },
      { to: 'stdout', text: `${text}\n` },
    ];
  }

  /** The turn ended otherwise (unanswered, timed out, interrupted): ends a line left open. */
  cut(): string {
    const open = this.lineOpen;
    this.lineOpen = false;
    return open ? '\n' : '';
  }
}
