/**
 * Recognises Markdown's fenced code blocks (``` or ~~~) line by line, the one rule the splitter and the HTML renderer
 * must agree on, so a part the splitter calls balanced is rendered with its code kept as code.
 */

/** The opening line of a fenced code block. */
export interface Fence {
  /** The run of backticks or tildes that opened the block; only a run of the same character, at least as long, closes it. */
  marker: string;
  /** The info string after the marker, trimmed; its first word names the language. */
  info: string;
}

// CommonMark: up to three spaces of indentation, then at least three backticks or tildes.
// `s`: a line of CRLF text keeps its \r, which `.` would not match.
const OPENING = /^ {0,3}(`{3,}|~{3,})(.*)$/s;
const CLOSING = /^ {0,3}(`{3,}|~{3,})[ \t\r]*$/;

/** The fence `line` opens, or null when it is not an opening fence line. */
export function parseFenceOpen(line: string): Fence | null {
  const match = OPENING.exec(line);
  if (match === null) return null;
  const marker = match[1]!;
  const info = match[2]!;
  // A backtick fence's info string may not hold a backtick, so "```a` b`" stays inline code.
  if (marker.startsWith('`') && info.includes('`')) return null;
  return { marker, info: info.trim() };
}

/** Whether `line` closes the block that `fence` opened. */
export function isFenceClose(line: string, fence: Fence): boolean {
  const match = CLOSING.exec(line);
  return match !== null && match[1]![0] === fence.marker[0] && match[1]!.length >= fence.marker.length;
}

/** The line that reopens `fence` at the top of the next part: its marker and info string. */
export function fenceLine(fence: Fence): string {
  return fence.marker + fence.info;
}

/** The fence still open after the last line of `text`, or null when every block that opened there has closed. */
export function openFenceAtEnd(text: string): Fence | null {
  let open: Fence | null = null;
  for (const line of text.split('\n')) {
    if (open === null) open = parseFenceOpen(line);
    else if (isFenceClose(line, open)) open = null;
  }
  return open;
}
