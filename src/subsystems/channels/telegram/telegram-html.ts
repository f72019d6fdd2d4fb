/**
 * Renders one part of a model's Markdown reply as Telegram `parse_mode: "HTML"`: fenced code, quotes, headings and
 * list markers here, inline syntax in markdown-inline.ts. The output only ever holds balanced tags Telegram supports,
 * and what it shows is never longer than the Markdown, so a part within the limit stays within it.
 */
import { type Fence, isFenceClose, parseFenceOpen } from './markdown-fence.js';
import { renderInline, type InlineTag } from './markdown-inline.js';
import { escapeHtmlAttribute, escapeHtmlText, visibleTextOf, wellFormed } from './telegram-html-escape.js';

const QUOTE_LINE = /^ {0,3}>/;
const QUOTE_MARK = /^ {0,3}> ?/;
const HEADING = /^ {0,3}#{1,6}[ \t]+(.*)$/;
const HEADING_CLOSE = /(?:^|[ \t]+)#+[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const BULLET = /^([ \t]*)[-*+]([ \t])/;
const LANGUAGE = /^[\w+#.-]{1,32}$/;
const IN_BOLD: ReadonlySet<InlineTag> = new Set(['b']);

/** `markdown` (one part of a reply) as the text of a Telegram message sent with `parse_mode: "HTML"`. */
export function markdownToTelegramHtml(markdown: string): string {
  const lines = wellFormed(markdown).replace(/\r\n?/g, '\n').split('\n');
  const blocks: string[] = [];
  for (let i = 0; i < lines.length;) {
    const fence = parseFenceOpen(lines[i]!);
    let end = i + 1;
    if (fence !== null) {
      while (end < lines.length && !isFenceClose(lines[end]!, fence)) end++;
      blocks.push(renderCodeBlock(lines.slice(i + 1, end).join('\n'), fence));
      end++;
    } else if (QUOTE_LINE.test(lines[i]!)) {
      while (end < lines.length && QUOTE_LINE.test(lines[end]!)) end++;
      blocks.push(renderQuote(lines.slice(i, end)));
    } else {
      blocks.push(renderLine(lines[i]!));
    }
    i = end;
  }
  const html = blocks.join('\n');
  // Telegram refuses a message that shows nothing ("message text is empty"), as a lone empty code block would.
  return visibleTextOf(html).trim() === '' ? escapeHtmlText(wellFormed(markdown)) : html;
}

function renderCodeBlock(code: string, fence: Fence): string {
  // An entity around nothing visible is at best dropped by Telegram; show the blank lines as they are.
  if (code.trim() === '') return escapeHtmlText(code);
  const language = fence.info.split(/\s/)[0]!;
  if (!LANGUAGE.test(language)) return `<pre>${escapeHtmlText(code)}</pre>`;
  return `<pre><code class="language-${escapeHtmlAttribute(language)}">${escapeHtmlText(code)}</code></pre>`;
}

function renderQuote(lines: string[]): string {
  // Telegram cannot nest quotes, so a deeper ">" stays text.
  const html = lines.map((line) => renderLine(line.replace(QUOTE_MARK, ''))).join('\n');
  return visibleTextOf(html).trim() === '' ? html : `<blockquote>${html}</blockquote>`;
}

function renderLine(line: string): string {
  const heading = HEADING.exec(line);
  const title = heading === null ? '' : heading[1]!.replace(HEADING_CLOSE, '').trim();
  if (title !== '') return `<b>${renderInline(title, IN_BOLD)}</b>`;
  if (RULE.test(line)) return escapeHtmlText(line);
  // "• " is as long as "- ", so the visible text does not grow.
  const bullet = BULLET.exec(line);
  if (bullet !== null) return `${bullet[1]}•${bullet[2]}${renderInline(line.slice(bullet[0].length))}`;
  return renderInline(line);
}
