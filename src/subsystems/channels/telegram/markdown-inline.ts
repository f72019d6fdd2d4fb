/**
 * Renders one line of Markdown's inline syntax (code spans, emphasis, strikethrough, links, backslash escapes) as
 * Telegram HTML. Each construct emits its opening tag, its rendered content and its closing tag at once, so tags are
 * always balanced and nested; a delimiter without a partner stays literal text.
 */
import { escapeHtmlAttribute, escapeHtmlText } from './telegram-html-escape.js';

/** The inline tags the renderer opens; one already open around a span is not opened again inside it. */
export type InlineTag = 'b' | 'i' | 's' | 'a';

interface Line {
  text: string;
  /** At the start of each backtick run, the start of the next run of the same length (its closer), else -1. */
  codeClose: Int32Array;
}

interface Step {
  html: string;
  next: number;
}

interface Link {
  labelEnd: number;
  url: string;
  next: number;
}

const ASCII_PUNCTUATION = /^[!-/:-@[-`{-~]$/;
// Telegram's own link schemes and the web's; anything else (javascript:, file:, relative paths) stays text.
const ALLOWED_URL = /^(?:https?:\/\/[^\s/?#]|tg:\/\/\w|mailto:[^\s@]+@)[^\s\p{Cc}]*$/iu;
const WORD_CHAR = /^[\p{L}\p{N}]$/u;

/** `text` (one line) rendered as Telegram HTML inside the tags in `open`. */
export function renderInline(text: string, open: ReadonlySet<InlineTag> = new Set()): string {
  return renderRange({ text, codeClose: pairCodeRuns(text) }, 0, text.length, open);
}

function renderRange(line: Line, from: number, to: number, open: ReadonlySet<InlineTag>): string {
  let html = '';
  for (let i = from; i < to;) {
    const step = construct(line, i, to, open);
    if (step === null) {
      html += escapeHtmlText(line.text[i]!);
      i++;
    } else {
      html += step.html;
      i = step.next;
    }
  }
  return html;
}

function construct(line: Line, i: number, to: number, open: ReadonlySet<InlineTag>): Step | null {
  const text = line.text;
  switch (text[i]) {
    case '\\':
      return i + 1 < to && ASCII_PUNCTUATION.test(text[i + 1]!)
        ? { html: escapeHtmlText(text[i + 1]!), next: i + 2 }
        : null;
    case '`':
      return codeSpan(line, i, to, open);
    case '*':
    case '_':
    case '~':
      return emphasis(line, i, to, open);
    case '[':
      return link(line, i, to, open);
    default:
      return null;
  }
}

function codeSpan(line: Line, i: number, to: number, open: ReadonlySet<InlineTag>): Step {
  const width = runLength(line.text, i, to);
  const close = line.codeClose[i]!;
  // An unmatched run is literal as a whole, so "```" is not retried as "``" one character on.
  if (close === -1 || close + width > to) return { html: line.text.slice(i, i + width), next: i + width };
  const next = close + width;
  let code = line.text.slice(i + width, close);
  if (code.trim() === '') return { html: escapeHtmlText(line.text.slice(i, next)), next };
  // CommonMark strips one space from each end, so "`` `x` ``" can show a backtick at an edge.
  if (code.length >= 2 && code.startsWith(' ') && code.endsWith(' ')) code = code.slice(1, -1);
  // Telegram lets no entity contain code but bold, italic and strikethrough; a link shows it as plain text.
  return { html: open.has('a') ? escapeHtmlText(code) : `<code>${escapeHtmlText(code)}</code>`, next };
}

function emphasis(line: Line, i: number, to: number, open: ReadonlySet<InlineTag>): Step | null {
  const { text } = line;
  const char = text[i]!;
  const run = runLength(text, i, to);
  const width = char === '~' ? (run >= 2 ? 2 : 0) : Math.min(run, 2);
  if (width === 0 || !canOpen(text, i, width, to)) return null;
  const close = findCloser(line, i + width, to, width, open);
  if (close === -1) return null;
  const tag: InlineTag = char === '~' ? 's' : width === 2 ? 'b' : 'i';
  const next = close + width;
  // Telegram does not nest an entity in one of its own kind: inside bold, ** only drops its markers.
  if (open.has(tag)) return { html: renderRange(line, i + width, close, open), next };
  return { html: `<${tag}>${renderRange(line, i + width, close, new Set([...open, tag]))}</${tag}>`, next };
}

function canOpen(text: string, i: number, width: number, to: number): boolean {
  if (i + width >= to || isSpace(text[i + width]!)) return false;
  // An underscore inside a word (snake_case) is not emphasis; an asterisk there is.
  return text[i] !== '_' || !isWordChar(text[i - 1]);
}

/** The start of the delimiter run of `width` that closes the one ending at `from`, or -1. */
function findCloser(line: Line, from: number, to: number, width: number, open: ReadonlySet<InlineTag>): number {
  const { text } = line;
  const char = text[from - 1]!;
  for (let j = from; j < to;) {
    const current = text[j]!;
    if (current === '\\') j += 2;
    else if (current === '`') j = codeSpan(line, j, to, open).next;
    else if (current === '[' && !open.has('a') && parseLink(line, j, to) !== null) j = parseLink(line, j, to)!.next;
    else if (current === char) {
      const run = runLength(text, j, to);
      // A closing ** takes the last two of a longer run, so "***x***" is bold around italic.
      const at = width === 2 ? (run >= 2 ? j + run - 2 : -1) : run === 1 ? j : -1;
      if (at > from && !isSpace(text[at - 1]!) && (char !== '_' || !isWordChar(text[at + width]))) return at;
      j += run;
    } else j++;
  }
  return -1;
}

function link(line: Line, i: number, to: number, open: ReadonlySet<InlineTag>): Step | null {
  if (open.has('a')) return null;
  const parsed = parseLink(line, i, to);
  if (parsed === null) return null;
  const label = renderRange(line, i + 1, parsed.labelEnd, new Set([...open, 'a' as const]));
  return { html: `<a href="${escapeHtmlAttribute(parsed.url)}">${label}</a>`, next: parsed.next };
}

/** `[label](url)` at `i` with a non-blank label and an allowed URL (no spaces, so no title), or null. */
function parseLink(line: Line, i: number, to: number): Link | null {
  const { text } = line;
  let labelEnd = -1;
  for (let j = i, depth = 0; j < to && labelEnd === -1;) {
    const char = text[j]!;
    if (char === '\\') j += 2;
    else if (char === '`') j = codeSpan(line, j, to, new Set()).next;
    else {
      if (char === '[') depth++;
      else if (char === ']' && --depth === 0) labelEnd = j;
      j++;
    }
  }
  if (labelEnd === -1 || text[labelEnd + 1] !== '(' || text.slice(i + 1, labelEnd).trim() === '') return null;
  for (let j = labelEnd + 2, depth = 0; j < to && !isSpace(text[j]!); j++) {
    if (text[j] === '(') depth++;
    else if (text[j] === ')' && depth-- === 0) {
      const url = text.slice(labelEnd + 2, j);
      return ALLOWED_URL.test(url) ? { labelEnd, url, next: j + 1 } : null;
    }
  }
  return null;
}

/** Pairs each backtick run with the next run of the same length, as a left-to-right scan would. */
function pairCodeRuns(text: string): Int32Array {
  const codeClose = new Int32Array(text.length).fill(-1);
  const starts: number[] = [];
  for (let i = 0; i < text.length; i++) if (text[i] === '`' && text[i - 1] !== '`') starts.push(i);
  const nextOfLength = new Map<number, number>();
  for (let k = starts.length - 1; k >= 0; k--) {
    const start = starts[k]!;
    const width = runLength(text, start, text.length);
    codeClose[start] = nextOfLength.get(width) ?? -1;
    nextOfLength.set(width, start);
  }
  return codeClose;
}

function runLength(text: string, i: number, to: number): number {
  let end = i;
  while (end < to && text[end] === text[i]) end++;
  return end - i;
}

function isSpace(char: string): boolean {
  return /\s/.test(char);
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && WORD_CHAR.test(char);
}
