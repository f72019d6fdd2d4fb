/**
 * Cuts a model's Markdown reply into parts Telegram accepts: at a paragraph break, else a line break, else a space,
 * never inside a surrogate pair; a code block that straddles a cut is closed in one part and reopened in the next.
 */
import { type Fence, fenceLine, isFenceClose, openFenceAtEnd } from './markdown-fence.js';

/** Telegram's limit on a message's text, in UTF-16 code units after entity parsing. */
export const TELEGRAM_TEXT_LIMIT = 4096;
/** The smallest limit `splitReply` accepts. */
export const MIN_SPLIT_LIMIT = 16;

/** One part of a split reply: the line reopening a carried code block, the reply's own text, the added close. */
export interface ReplyPart {
  reopen: string;
  body: string;
  close: string;
}

/** Splits `markdown` into non-empty parts of at most `limit` UTF-16 code units each, added fence lines included. */
export function splitReply(markdown: string, limit = TELEGRAM_TEXT_LIMIT): string[] {
  return splitReplyParts(markdown, limit).map((part) => part.reopen + part.body + part.close);
}

/** `splitReply` with each part's added fence lines kept apart from the reply's own text. */
export function splitReplyParts(markdown: string, limit = TELEGRAM_TEXT_LIMIT): ReplyPart[] {
  if (!Number.isInteger(limit) || limit < MIN_SPLIT_LIMIT) {
    throw new RangeError(
      `A reply cannot be split with a limit of ${limit}: it must be an integer ≥ ${MIN_SPLIT_LIMIT}.`,
    );
  }
  const parts: ReplyPart[] = [];
  let rest = markdown.trim();
  let carried: Fence | null = null;
  while (rest.length > 0) {
    const taken = takePart(rest, carried, limit);
    parts.push(taken.part);
    rest = rest.slice(taken.next);
    carried = taken.carried;
  }
  return parts;
}

interface Taken {
  part: ReplyPart;
  /** Where the next part's text starts in `rest`. */
  next: number;
  /** The code block the next part reopens. */
  carried: Fence | null;
}

interface Cut {
  /** The body is `rest.slice(0, end)`. */
  end: number;
  /** The end of the blank run at the cut. */
  runEnd: number;
}

function takePart(rest: string, carried: Fence | null, limit: number): Taken {
  const reopen = carried === null ? '' : `${reopenLine(carried, limit)}\n`;
  let room = limit - reopen.length;
  for (;;) {
    const cut = rest.length <= room ? { end: rest.length, runEnd: rest.length } : chooseCut(rest, room, reopen);
    const body = rest.slice(0, cut.end);
    const open = openFenceAtEnd(reopen + body);
    const carry = open !== null && canCarry(open, limit) ? open : null;
    const close = carry === null ? '' : `\n${carry.marker}`;
    if (reopen.length + body.length + close.length <= limit) {
      return carry === null
        ? { part: { reopen, body, close }, next: cut.runEnd, carried: null }
        : carryOver(rest, reopen, cut, carry, limit);
    }
    // Room only shrinks, and reopen + close stay within half the limit, so this ends with room to spare.
    room = limit - reopen.length - close.length;
  }
}

/**
 * A carried block costs a reopening line and a close in every part it spans, at most a quarter of the limit; one whose
 * marker alone is longer is neither closed nor reopened, and the next part shows the rest of its code as text.
 */
function canCarry(fence: Fence, limit: number): boolean {
  return 2 * (fence.marker.length + 1) <= Math.floor(limit / 4);
}

/** The line reopening a carried block: with its info string, unless that makes it too long to repeat. */
function reopenLine(fence: Fence, limit: number): string {
  const full = fenceLine(fence);
  return full.length + 1 + 1 + fence.marker.length <= Math.floor(limit / 4) ? full : fence.marker;
}

/** Ends a part inside `carry`'s block: closes it, or takes the block's own closing line when that comes next and fits. */
function carryOver(rest: string, reopen: string, cut: Cut, carry: Fence, limit: number): Taken {
  // Inside code only the line break at the cut goes: the next line's indentation is part of the code.
  const lastBreak = rest.lastIndexOf('\n', cut.runEnd - 1);
  const next = lastBreak >= cut.end ? lastBreak + 1 : cut.runEnd;
  const lineEnd = rest.indexOf('\n', next) === -1 ? rest.length : rest.indexOf('\n', next);
  const line = rest.slice(next, lineEnd);
  const end = next + line.trimEnd().length;
  if (
    isFenceClose(line, carry) &&
    reopen.length + end <= limit &&
    openFenceAtEnd(reopen + rest.slice(0, end)) === null
  ) {
    return { part: { reopen, body: rest.slice(0, end), close: '' }, next: blankRunEnd(rest, end), carried: null };
  }
  return { part: { reopen, body: rest.slice(0, cut.end), close: `\n${carry.marker}` }, next, carried: carry };
}

interface BlankRun {
  start: number;
  end: number;
  newlines: number;
}

// Paragraph breaks in the latter half of the room first, then line breaks, then spaces; then the same anywhere.
const TIERS: readonly (readonly [minNewlines: number, minShare: number])[] = [
  [2, 0.5],
  [1, 0.5],
  [0, 0.5],
  [2, 0],
  [1, 0],
  [0, 0],
];

function chooseCut(rest: string, room: number, reopen: string): Cut {
  const runs = blankRuns(rest, room);
  for (const [minNewlines, minShare] of TIERS) {
    for (let k = runs.length - 1; k >= 0 && runs[k]!.start >= room * minShare; k--) {
      const run = runs[k]!;
      if (run.newlines >= minNewlines && !endsOnOpener(reopen + rest.slice(0, run.start))) {
        return { end: run.start, runEnd: run.end };
      }
    }
  }
  // No blank to cut at: cut at the room, a code unit early rather than between a surrogate pair's halves.
  const end = isHighSurrogate(rest.charCodeAt(room - 1)) && isLowSurrogate(rest.charCodeAt(room)) ? room - 1 : room;
  return { end, runEnd: end };
}

/** The blank runs starting within the room after some text, so a cut there leaves a non-empty body. */
function blankRuns(text: string, room: number): BlankRun[] {
  const runs: BlankRun[] = [];
  for (let i = 1; i <= room && i < text.length; i++) {
    if (!isBlank(text[i]) || isBlank(text[i - 1])) continue;
    let end = i;
    let newlines = 0;
    for (; end < text.length && isBlank(text[end]); end++) if (text[end] === '\n') newlines++;
    runs.push({ start: i, end, newlines });
    i = end;
  }
  return runs;
}

/** Whether `text`'s last line opens a block, which a cut there would leave empty. */
function endsOnOpener(text: string): boolean {
  return openFenceAtEnd(text) !== null && openFenceAtEnd(text.slice(0, Math.max(0, text.lastIndexOf('\n')))) === null;
}

function blankRunEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length && isBlank(text[end])) end++;
  return end;
}

function isBlank(char: string | undefined): boolean {
  return char === ' ' || char === '\t' || char === '\n' || char === '\r';
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
