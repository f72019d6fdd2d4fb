/** Reads a server's stderr line by line: each line goes to the debug log, and the last ones explain a crash. */
import type { Readable } from 'node:stream';

/** The newest lines of a stream, bounded in count and length. */
export class StderrTail {
  private readonly lines: string[] = [];
  private partial = '';

  constructor(
    stream: Readable,
    private readonly onLine: (line: string) => void,
    private readonly keep = 5,
    private readonly maxLineLength = 500,
  ) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => this.append(chunk));
    stream.on('error', () => undefined); // the process's end is reported by the transport, not here
  }

  /** The newest non-empty line, if any. */
  last(): string | undefined {
    return this.lines.at(-1);
  }

  /** The kept lines, oldest first. */
  recent(): readonly string[] {
    return this.lines;
  }

  private append(chunk: string): void {
    const parts = (this.partial + chunk).split('\n');
    this.partial = (parts.pop() ?? '').slice(-this.maxLineLength);
    for (const part of parts) {
      const line = part.trimEnd().slice(0, this.maxLineLength);
      if (line === '') continue;
      this.lines.push(line);
      if (this.lines.length > this.keep) this.lines.shift();
      this.onLine(line);
    }
  }
}
