import { describe, expect, it } from 'vitest';
import { ReplyTextStream, decodedPrefix } from '../../../src/subsystems/thinking/reply-text-stream.js';

/** Feeds `json` in fragments of `size` characters; returns the pieces given out. */
function feed(json: string, size: number): { turnId: string; text: string }[] {
  const stream = new ReplyTextStream();
  const pieces: { turnId: string; text: string }[] = [];
  for (let i = 0; i < json.length; i += size) {
    const piece = stream.push(json.slice(i, i + size));
    if (piece !== null) pieces.push(piece);
  }
  return pieces;
}

describe('ReplyTextStream', () => {
  const text = 'Line one,\n"quoted" \\ back, tab\t, é, 😀 and \u2603.';
  const json = JSON.stringify({ turnId: 't-7', text });
  const escaped = json.replace('😀', '\\ud83d\\ude00').replace('é', '\\u00e9');

  it.each([1, 2, 3, 5, 8, 1000])(
    'gives out the whole text, in order, once, whatever the fragment size (%i)',
    (size) => {
      for (const source of [json, escaped]) {
        const pieces = feed(source, size);
        expect(pieces.every((p) => p.turnId === 't-7')).toBe(true);
        expect(pieces.map((p) => p.text).join('')).toBe(text);
      }
    },
  );

  it('never gives out half an escape or half a surrogate pair', () => {
    const pieces = feed(escaped, 1);
    for (const piece of pieces) expect(piece.text).not.toMatch(/\\u|\\n|[\ud800-\udbff]$/);
  });

  it('holds the text back until the turn id has arrived, when the model writes the text first', () => {
    const pieces = feed(JSON.stringify({ text: 'Hello there', turnId: 't-2' }), 4);
    expect(pieces).toEqual([{ turnId: 't-2', text: 'Hello there' }]);
  });

  it('is not fooled by the key names inside the text', () => {
    const pieces = feed(JSON.stringify({ text: 'say "turnId": "x" and "text": "y"', turnId: 't-3' }), 3);
    expect(pieces.map((p) => p.text).join('')).toBe('say "turnId": "x" and "text": "y"');
    expect(pieces[0]!.turnId).toBe('t-3');
  });

  it('decodes the arrived part of a JSON string body', () => {
    expect(decodedPrefix('ab\\n')).toBe('ab\n');
    expect(decodedPrefix('ab\\')).toBe('ab');
    expect(decodedPrefix('ab\\u00')).toBe('ab');
    expect(decodedPrefix('ab"cd')).toBe('ab');
  });
});
