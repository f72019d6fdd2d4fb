/**
 * A model's Markdown as Slack's mrkdwn: `**bold**` → `*bold*`, `*italic*` → `_italic_`, `~~struck~~` → `~struck~`,
 * `[text](url)` → `<url|text>`, headings as bold lines, list bullets as `•`; code (fenced or inline) kept as written
 * but for Slack's three escapes (`&`, `<`, `>`), which every text needs so a model's `<` never reads as a link or a
 * mention. Slack counts the limit of an edited message in bytes of this text, so `mrkdwnBytes` measures it.
 */
import { parseFenceOpen, isFenceClose, type Fence } from '../telegram/markdown-fence.js';

/** Slack's limit on `chat.update`'s text: 4,000 bytes, counted after its escapes. */
export const SLACK_UPDATE_TEXT_BYTES = 4_000;

/** Escapes the three characters Slack reserves for its own markup. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `markdown` rendered as Slack mrkdwn. */
export function markdownToMrkdwn(markdown: string): string {
  const out: string[] = [];
  let fence: Fence | null = null;
  for (const line of markdown.split('\n')) {
    if (fence !== null) {
      if (isFenceClose(line, fence)) {
        out.push('```');
        fence = null;
      } else out.push(escapeMrkdwn(line));
      continue;
    }
    const open = parseFenceOpen(line);
    if (open !== null) {
      // Slack's code blocks have no language: the opening line is the fence alone.
      out.push('```');
      fence = open;
      continue;
    }
    out.push(blockLine(line));
  }
  if (fence !== null) out.push('```');
  return out.join('\n');
}

/** The UTF-8 size of `markdown` as Slack receives it. */
export function mrkdwnBytes(markdown: string): number {
  return Buffer.byteLength(markdownToMrkdwn(markdown), 'utf8');
}

function blockLine(line: string): string {
  const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading !== null) return heading[1] === '' ? '' : `*${inline(stripEmphasis(heading[1]!))}*`;
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (bullet !== null) return `${bullet[1]}• ${inline(bullet[2]!)}`;
  const quote = /^\s*>\s?(.*)$/.exec(line);
  if (quote !== null) return `&gt; ${inline(quote[1]!)}`;
  if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return '───';
  return inline(line);
}

// A heading is shown bold as a whole: emphasis inside it would close Slack's bold early.
function stripEmphasis(text: string): string {
  return text.replace(/\*\*(.+?)\*\*/g, '$1').replace(/__(.+?)__/g, '$1');
}

/** One line's inline markup, inline code spans kept apart from it. */
function inline(line: string): string {
  return line
    .split(/(`[^`]+`)/)
    .map((piece, i) => (i % 2 === 1 ? escapeMrkdwn(piece) : prose(piece)))
    .join('');
}

const BOLD = '\u0001';

function prose(text: string): string {
  return text
    .split(/(\[[^\]\n]+\]\([^)\s]+\))/)
    .map((piece, i) => {
      if (i % 2 === 1) {
        const [, label, url] = /^\[([^\]\n]+)\]\(([^)\s]+)\)$/.exec(piece)!;
        return `<${escapeMrkdwn(url!).replace(/\|/g, '%7C')}|${emphasis(escapeMrkdwn(label!))}>`;
      }
      return emphasis(escapeMrkdwn(piece));
    })
    .join('');
}

// Bold is set aside first, so its `**` never reads as two italics; Slack's bold is a single `*`.
function emphasis(text: string): string {
  return text
    .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, `${BOLD}$1${BOLD}`)
    .replace(/__(?=\S)(.+?)(?<=\S)__/g, `${BOLD}$1${BOLD}`)
    .replace(/(?<![*\w])\*(?=\S)([^*]+?)(?<=\S)\*(?![*\w])/g, '_$1_')
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, '~$1~')
    .replace(new RegExp(BOLD, 'g'), '*');
}
