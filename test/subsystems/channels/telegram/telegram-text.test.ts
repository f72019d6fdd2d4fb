import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitReplyParts } from '../../../../src/subsystems/channels/telegram/markdown-split.js';
import {
  markdownToTelegramHtml,
  plainTextOf,
  splitReply,
} from '../../../../src/subsystems/channels/telegram/telegram-text.js';

// --- Oracles written apart from the code under test ---

/** The fence open at the end of `text` by CommonMark's rules, or null: an independent twin of markdown-fence.ts. */
function openFence(text: string): string | null {
  let open: string | null = null;
  for (const line of text.split('\n')) {
    const run = /^ {0,3}(`{3,}|~{3,})([^]*)$/.exec(line);
    if (run === null) continue;
    if (open === null) {
      if (!(run[1]!.startsWith('`') && run[2]!.includes('`'))) open = run[1]!;
    } else if (run[1]![0] === open[0] && run[1]!.length >= open.length && /^[ \t\r]*$/.test(run[2]!)) open = null;
  }
  return open;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const ENTITY_TEXT: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"' };
const NO_TAGS_INSIDE = new Set(['code', 'pre']);

/**
 * Checks `html` against a strict reading of Telegram's HTML mode and returns its visible text: only b, i, s, u, code,
 * pre, a href and blockquote; balanced and properly nested; nothing inside code; no element around nothing visible;
 * the four entities only, no bare `<`, `>` or `&`, and no lone surrogate.
 */
function validateTelegramHtml(html: string): string {
  // The Bot API refuses text that is not valid UTF-8, in any parse mode.
  if (LONE_SURROGATE.test(html)) throw new Error('lone surrogate');
  const stack: { name: string; visibleAt: number }[] = [];
  let visible = '';
  for (let i = 0; i < html.length;) {
    const char = html[i]!;
    if (char === '&') {
      const entity = /^&(lt|gt|amp|quot);/.exec(html.slice(i, i + 6));
      if (entity === null) throw new Error(`bare & at ${i}`);
      visible += ENTITY_TEXT[entity[0]];
      i += entity[0].length;
    } else if (char === '>') {
      throw new Error(`bare > at ${i}`);
    } else if (char === '<') {
      const end = html.indexOf('>', i);
      if (end === -1) throw new Error(`unterminated tag at ${i}`);
      const tag = html.slice(i, end + 1);
      const top = stack.at(-1);
      const closing = /^<\/([a-z]+)>$/.exec(tag);
      if (closing !== null) {
        if (top === undefined || top.name !== closing[1]) throw new Error(`${tag} closes ${top?.name ?? 'nothing'}`);
        if (visible.slice(top.visibleAt).trim() === '') throw new Error(`empty <${top.name}> before ${i}`);
        stack.pop();
      } else {
        const opening =
          /^<(b|i|s|u|code|pre|blockquote)>$/.exec(tag) ??
          /^<(code) class="language-[\w+#.-]+">$/.exec(tag) ??
          /^<(a) href="(?:[^"<>&]|&(?:lt|gt|amp|quot);)+">$/.exec(tag);
        if (opening === null) throw new Error(`unsupported tag ${tag}`);
        const name = opening[1]!;
        const classed = tag.includes('class=');
        if (top !== undefined && NO_TAGS_INSIDE.has(top.name) && !(top.name === 'pre' && classed)) {
          throw new Error(`${tag} inside <${top.name}>`);
        }
        if (classed && top?.name !== 'pre') throw new Error(`${tag} outside <pre>`);
        if (stack.some((open) => open.name === name)) throw new Error(`${tag} nested in itself`);
        if (name === 'pre' && stack.length > 0) throw new Error('<pre> inside another element');
        stack.push({ name, visibleAt: visible.length });
      }
      i = end + 1;
    } else {
      visible += char;
      i++;
    }
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack.at(-1)!.name}>`);
  return visible;
}

// --- Arbitraries ---

const FRAGMENTS = [
  '**',
  '*',
  '_',
  '__',
  '~~',
  '~',
  '`',
  '``',
  '```',
  '```python\n',
  '~~~\n',
  '````\n',
  '\n```\n',
  '\n',
  '\n\n',
  ' ',
  '  ',
  '\t',
  '<',
  '>',
  '&',
  '"',
  '&amp;',
  '<b>',
  '[a](http://x)',
  '[b](javascript:alert(1))',
  '[',
  ']',
  '(',
  ')',
  '> ',
  '\n> ',
  '# ',
  '\n## ',
  '- ',
  '\n* ',
  '\\',
  '\\*',
  'word',
  'snake_case_name',
  '2 * 3',
  '😀',
  'http://x.y/a_b',
  '\r\n',
  '---',
];
const markdownish = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 80 }).map((parts) => parts.join(''));
const anyText = fc.oneof(
  markdownish,
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
);
const wordy = fc
  .array(
    fc.oneof(
      fc.constantFrom(...FRAGMENTS),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
      fc.integer({ min: 1, max: 120 }).map((n) => 'x'.repeat(n)),
      fc.integer({ min: 1, max: 60 }).map((n) => '😀'.repeat(n)),
    ),
    { maxLength: 120 },
  )
  .map((parts) => parts.join(''));
// Prose around fenced blocks of many short lines, so that most splits fall inside code.
const codeLine = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  markdownish.map((text) => text.replace(/\n/g, ' ').slice(0, 40)),
);
const codeBlock = fc
  .tuple(fc.constantFrom('```', '```python', '~~~', '````md', '~~~~ js'), fc.array(codeLine, { maxLength: 40 }))
  .map(([open, lines]) => `${open}\n${lines.join('\n')}\n${open.split(' ')[0]!.replace(/[a-z]+$/, '')}`);
const withCode = fc
  .array(fc.oneof(wordy, codeBlock, codeBlock), { minLength: 1, maxLength: 6 })
  .map((blocks) => blocks.join('\n\n'));
const replies = fc.oneof(wordy, withCode);

describe('splitReply', () => {
  it('keeps every part within the limit, non-empty, and surrogate pairs whole', () => {
    fc.assert(
      fc.property(replies, fc.integer({ min: 16, max: 300 }), (reply, limit) => {
        const parts = splitReply(reply, limit);
        expect(parts.length > 0).toBe(reply.trim() !== '');
        for (const part of parts) {
          expect(part.length).toBeLessThanOrEqual(limit);
          expect(part.trim()).not.toBe('');
          if (!LONE_SURROGATE.test(reply)) expect(part).not.toMatch(LONE_SURROGATE);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('gives back the reply in order once the added fences go, apart from whitespace at the splits', () => {
    fc.assert(
      fc.property(replies, fc.integer({ min: 16, max: 300 }), (reply, limit) => {
        const parts = splitReplyParts(reply, limit);
        expect(splitReply(reply, limit)).toEqual(parts.map((part) => part.reopen + part.body + part.close));
        let at = 0;
        parts.forEach((part, k) => {
          expect(part.reopen).toMatch(/^$|^(`{3,}|~{3,})[^\n]*\n$/);
          expect(part.close).toMatch(/^$|^\n(`{3,}|~{3,})$/);
          // A part reopens exactly the block the part before it closed.
          const closed = k > 0 ? parts[k - 1]!.close.slice(1) : '';
          expect(part.reopen === '' ? '' : part.reopen.slice(0, closed.length)).toBe(closed);
          // Only whitespace lies between one body and the next (a body in code keeps its indentation).
          let start = at;
          while (!reply.startsWith(part.body, start) && /\s/.test(reply[start] ?? '')) start++;
          expect(reply.startsWith(part.body, start)).toBe(true);
          at = start + part.body.length;
        });
        expect(reply.slice(at).trim()).toBe('');
      }),
      { numRuns: 500 },
    );
  });

  it('leaves every part with its code blocks closed when no run of fence characters is near the limit', () => {
    fc.assert(
      fc.property(replies, fc.integer({ min: 48, max: 400 }), (reply, limit) => {
        // A cut inside a line can make any run of backticks or tildes open a block; one near limit/8 is not carried.
        fc.pre((reply.match(/`+|~+/g) ?? []).every((run) => run.length < limit / 8 - 1));
        for (const part of splitReply(reply, limit)) expect(openFence(part)).toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it('splits a 10,000-character reply with a code block across 4096 into 3 parts, closing and reopening it', () => {
    const prose = (n: number): string =>
      Array.from({ length: n / 10 }, () => 'lorem ips ')
        .join('')
        .trimEnd() + '.';
    const code = Array.from({ length: 200 }, (_, k) => `    print("line ${String(k).padStart(4, '0')}", x)`).join('\n');
    const reply = `${prose(1000)}\n\n\`\`\`python\n${code}\n\`\`\`\n\n${prose(3800)}`;
    expect(reply.length).toBeGreaterThan(9900);
    expect(reply.indexOf('```python')).toBeLessThan(4096);
    expect(reply.lastIndexOf('```')).toBeGreaterThan(4096);

    const parts = splitReply(reply);
    expect(parts).toHaveLength(3);
    expect(parts.every((part) => part.length <= 4096)).toBe(true);
    expect(parts[0]).toMatch(/^lorem/);
    expect(parts[0]).toMatch(/x\)\n```$/);
    expect(parts[1]).toMatch(/^```python\n {4}print\("line/);
    expect(parts.map(openFence)).toEqual([null, null, null]);
    expect(parts.join('').replace(/\s|```(python)?/g, '')).toBe(reply.replace(/\s|```(python)?/g, ''));
  });

  it('cuts at the last paragraph break in the latter half before a line break or a space', () => {
    const first = 'a'.repeat(60);
    const reply = `${first}\n\n${'b '.repeat(10)}\n${'c '.repeat(30)}`;
    expect(splitReply(reply, 100)[0]).toBe(first);
    expect(splitReply(`${'a '.repeat(30)}\n${'b '.repeat(40)}`, 100)[0]).toBe('a '.repeat(30).trimEnd());
    expect(splitReply('word '.repeat(40), 100)[0]).toBe('word '.repeat(20).trimEnd());
  });

  it('cuts a line with no space at the limit, a code unit early rather than inside a surrogate pair', () => {
    expect(splitReply('x'.repeat(250), 100)).toEqual(['x'.repeat(100), 'x'.repeat(100), 'x'.repeat(50)]);
    const parts = splitReply(`x${'😀'.repeat(100)}`, 100);
    expect(parts.map((part) => part.length)).toEqual([99, 100, 2]);
    expect(parts.join('')).toBe(`x${'😀'.repeat(100)}`);
  });

  it('reopens a block with its own fence so a longer fence keeps shorter ones inside it as code', () => {
    const body = Array.from({ length: 20 }, (_, k) => (k % 5 === 0 ? '```' : `row ${k}`)).join('\n');
    const parts = splitReply(`\`\`\`\`md\n${body}\n\`\`\`\``, 64);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(part.startsWith('````md\n')).toBe(true);
      expect(part.endsWith('\n````')).toBe(true);
    }
  });

  it('keeps the indentation of the code line after a cut inside a block', () => {
    const code = Array.from({ length: 10 }, (_, k) => `    step_${k}()`).join('\n');
    const [, second] = splitReply(`~~~\n${code}\n~~~`, 80);
    expect(second).toMatch(/^~~~\n {4}step_/);
  });

  it('closes a block the reply left open in its last part', () => {
    expect(splitReply('see:\n```js\nlet x = 1;')).toEqual(['see:\n```js\nlet x = 1;\n```']);
  });

  it('reopens a block without its info string when the opening line is too long to repeat', () => {
    const parts = splitReply(`\`\`\`${'i'.repeat(40)}\n${'code\n'.repeat(30)}\`\`\``, 100);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.slice(1).every((part) => part.startsWith('```\ncode'))).toBe(true);
    expect(parts.map(openFence)).toEqual(parts.map(() => null));
  });

  it('returns nothing for a blank reply and refuses a limit below 16', () => {
    expect(splitReply(' \n\t\n ')).toEqual([]);
    expect(() => splitReply('hello', 15)).toThrow(RangeError);
    expect(() => splitReply('hello', 100.5)).toThrow(RangeError);
  });
});

describe('markdownToTelegramHtml', () => {
  it.each([
    ['**bold** and __bold__', '<b>bold</b> and <b>bold</b>'],
    ['*it* and _it_', '<i>it</i> and <i>it</i>'],
    ['snake_case_name, 2 * 3 * 4, a * b', 'snake_case_name, 2 * 3 * 4, a * b'],
    ['**unclosed and *also', '**unclosed and *also'],
    ['~~gone~~ ~not~', '<s>gone</s> ~not~'],
    ['***both***', '<b><i>both</i></b>'],
    ['*a **b** c*', '<i>a <b>b</b> c</i>'],
    ['x < y && y > z "q"', 'x &lt; y &amp;&amp; y &gt; z "q"'],
    ['`a **b** <c>`', '<code>a **b** &lt;c&gt;</code>'],
    ['`` `tick` ``', '<code>`tick`</code>'],
    ['```unclosed inline', '```unclosed inline'],
    ['\\*not italic\\*', '*not italic*'],
    ['[site](https://a.b/?x=1&y="2")', '<a href="https://a.b/?x=1&amp;y=&quot;2&quot;">site</a>'],
    ['[bad](javascript:alert(1)) [rel](/x)', '[bad](javascript:alert(1)) [rel](/x)'],
    ['[**b** `c`](tg://user?id=1)', '<a href="tg://user?id=1"><b>b</b> c</a>'],
    ['[w](https://en.wikipedia.org/wiki/A_(b))', '<a href="https://en.wikipedia.org/wiki/A_(b)">w</a>'],
    ['# Title with **bold** ##', '<b>Title with bold</b>'],
    ['#hashtag', '#hashtag'],
    ['> quoted **b**\n> >deeper', '<blockquote>quoted <b>b</b>\n&gt;deeper</blockquote>'],
    ['- one\n  * two\n+ three\n---', '• one\n  • two\n• three\n---'],
    [
      '```python\nif a < b: print("*x*")\n```',
      '<pre><code class="language-python">if a &lt; b: print("*x*")</code></pre>',
    ],
    ['~~~\n**raw**\n~~~', '<pre>**raw**</pre>'],
    ['```"><b>\nx\n```', '<pre>x</pre>'],
    ['```\n```', '```\n```'],
    ['', ''],
  ])('renders %j as %j', (markdown, html) => {
    expect(markdownToTelegramHtml(markdown)).toBe(html);
  });

  it('produces only valid, balanced Telegram HTML that shows no more than the Markdown holds', () => {
    fc.assert(
      fc.property(anyText, (markdown) => {
        const html = markdownToTelegramHtml(markdown);
        expect(validateTelegramHtml(html).length).toBeLessThanOrEqual(markdown.length);
      }),
      { numRuns: 3000 },
    );
  });

  it('shows a fenced block exactly as written, interpreting nothing inside it', () => {
    fc.assert(
      fc.property(markdownish, (code) => {
        fc.pre(code.trim() !== '' && !code.split('\n').some((line) => /^ {0,3}`{3,}[ \t\r]*$/.test(line)));
        const html = markdownToTelegramHtml(`\`\`\`\n${code}\n\`\`\``);
        expect(html.startsWith('<pre>') && html.endsWith('</pre>')).toBe(true);
        expect(validateTelegramHtml(html)).toBe(code.replace(/\r\n?/g, '\n'));
      }),
    );
  });

  it('keeps every part of a split reply within the limit once rendered', () => {
    fc.assert(
      fc.property(replies, fc.integer({ min: 16, max: 300 }), (reply, limit) => {
        for (const part of splitReply(reply, limit)) {
          expect(validateTelegramHtml(markdownToTelegramHtml(part)).length).toBeLessThanOrEqual(limit);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('plainTextOf', () => {
  it('returns the part as written, so the fallback loses nothing', () => {
    expect(plainTextOf('**a** <b> & `c`')).toBe('**a** <b> & `c`');
  });

  it('replaces a lone surrogate, which the Bot API would refuse in any mode, keeping the length', () => {
    expect(plainTextOf('a\uD83D b 😀')).toBe('a\uFFFD b 😀');
    expect(markdownToTelegramHtml('**a\uDE00**')).toBe('<b>a\uFFFD</b>');
  });
});
