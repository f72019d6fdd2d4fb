/**
 * The text of a `reply` tool call read as its JSON arguments stream in, pure: fragments in, new text out. Only what
 * has fully arrived is given out (never half an escape, never half a surrogate pair), and only once the call's
 * `turnId` is known, whichever of the two the model writes first.
 */

const TURN_ID = /(?<!\\)"turnId"\s*:\s*"((?:[^"\\]|\\.)*)"/;
const TEXT_START = /(?<!\\)"text"\s*:\s*"/;
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** The decoded start of a JSON string body (`raw` begins just after its opening quote), as far as it has arrived. */
export function decodedPrefix(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length;) {
    const c = raw[i]!;
    if (c === '"') return out;
    if (c !== '\\') {
      out += c;
      i += 1;
      continue;
    }
    const next = raw[i + 1];
    if (next === undefined) return out;
    if (next !== 'u') {
      out += SIMPLE_ESCAPES[next] ?? next;
      i += 2;
      continue;
    }
    const hex = raw.slice(i + 2, i + 6);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) return out;
    const unit = parseInt(hex, 16);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      // A high surrogate waits for its low half: alone it is not a character.
      const low = /^\\u([0-9a-fA-F]{4})/.exec(raw.slice(i + 6));
      if (low === null) return out;
      out += String.fromCharCode(unit, parseInt(low[1]!, 16));
      i += 12;
      continue;
    }
    out += String.fromCharCode(unit);
    i += 6;
  }
  return out;
}

/** One `reply` call's arguments as they arrive. */
export class ReplyTextStream {
  private raw = '';
  private sent = 0;
  private turnId: string | undefined;

  /** Takes the next fragment of the arguments; returns the text not given out before, once the turn is known. */
  push(fragment: string): { turnId: string; text: string } | null {
    this.raw += fragment;
    if (this.turnId === undefined) {
      const found = TURN_ID.exec(this.raw);
      if (found === null) return null;
      this.turnId = decodedPrefix(`${found[1]!}"`);
    }
    const start = TEXT_START.exec(this.raw);
    if (start === null) return null;
    const text = decodedPrefix(this.raw.slice(start.index + start[0].length));
    if (text.length <= this.sent) return null;
    const piece = text.slice(this.sent);
    this.sent = text.length;
    return { turnId: this.turnId, text: piece };
  }
}
