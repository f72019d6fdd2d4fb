import { describe, expect, it } from 'vitest';
import { PlainTextStream } from '../../../src/subsystems/thinking/plain-text-stream.js';

/** Feeds `blocks` (text blocks, in order) in fragments of `size` characters; returns the pieces given out. */
function feed(blocks: readonly string[], size: number): { pieces: string[]; shown: string } {
  const stream = new PlainTextStream();
  const pieces: string[] = [];
  blocks.forEach((text, block) => {
    for (let i = 0; i < text.length; i += size) pieces.push(stream.push(block, text.slice(i, i + size)));
  });
  return { pieces: pieces.filter((p) => p !== ''), shown: stream.shown };
}

describe('PlainTextStream', () => {
  const blocks = ['\n  Paris, of course.\t\n', '', '  It has been the capital since 508. \n\n'];
  // As a whole call's text is read: its text blocks joined by a newline, trimmed.
  const whole = blocks.join('\n').trim();

  it.each([1, 2, 3, 7, 1000])(
    'gives out the text as the reply reads it, in order, whatever the fragment size (%i)',
    (size) => {
      const { pieces, shown } = feed(blocks, size);
      expect(pieces.join('')).toBe(shown);
      // The empty block sent no fragment: its newline is not seen, and what went out is still the text's start.
      expect(whole.replace('\n\n\n', '\n\n')).toBe(shown);
    },
  );

  it('holds back trailing whitespace until text follows it, and gives it out then', () => {
    const stream = new PlainTextStream();
    expect(stream.push(0, '  Hello  ')).toBe('Hello');
    expect(stream.push(0, '\n\n')).toBe('');
    expect(stream.shown).toBe('Hello');
    expect(stream.push(0, 'world')).toBe('  \n\nworld');
    expect(stream.shown).toBe('Hello  \n\nworld');
  });

  it('joins a new text block with a newline, given out only before its text', () => {
    const stream = new PlainTextStream();
    expect(stream.push(0, 'One.')).toBe('One.');
    expect(stream.push(2, ' ')).toBe('');
    expect(stream.push(2, 'Two.')).toBe('\n Two.');
  });

  it('gives out nothing for text that is only whitespace', () => {
    const { pieces, shown } = feed([' \n', '\t '], 1);
    expect(pieces).toEqual([]);
    expect(shown).toBe('');
  });
});
