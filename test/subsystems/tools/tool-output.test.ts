import { describe, expect, it } from 'vitest';
import { shapeToolOutput } from '../../../src/subsystems/tools/tool-output.js';

describe('shapeToolOutput', () => {
  it('passes text through and keeps an image the API accepts; describes other images, resources and links', () => {
    const shaped = shapeToolOutput({
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', data: 'aGk=', mimeType: 'image/png' },
        { type: 'image', data: 'aGk=', mimeType: 'image/tiff' },
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'inside' } },
        { type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AAAA' } },
        { type: 'resource_link', uri: 'file:///b.md', name: 'b', mimeType: 'text/markdown' },
      ],
    });
    expect(shaped.result).toEqual({
      isError: false,
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', data: 'aGk=', mimeType: 'image/png' },
        { type: 'text', text: '[image of type image/tiff, 4 base64 characters, not shown]' },
        { type: 'text', text: '[resource file:///a.txt (text/plain)]:\ninside' },
        { type: 'text', text: '[resource file:///a.bin] (binary, not shown)' },
        { type: 'text', text: '[resource link file:///b.md (text/markdown): b]' },
      ],
    });
    expect(shaped.text).toContain('[image image/png, 4 base64 characters]');
    expect(shaped.resultBytes).toBeGreaterThan(0);
  });

  it('cuts text beyond the cap on a character boundary and says how much was cut', () => {
    const shaped = shapeToolOutput(
      {
        content: [
          { type: 'text', text: 'ab' },
          { type: 'text', text: 'é'.repeat(10) },
        ],
      },
      7,
    );
    // 2 bytes + 5 bytes of 'é' (2 bytes each) → two whole 'é' kept.
    expect(shaped.result.content).toEqual([
      { type: 'text', text: 'ab' },
      { type: 'text', text: 'éé' },
      { type: 'text', text: '[truncated: the tool returned 22 bytes of text; the last 16 bytes were cut]' },
    ]);
  });

  it('marks a tool error, and says so when the tool gave nothing', () => {
    expect(shapeToolOutput({ content: [], isError: true }).result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'The tool failed without saying why.' }],
    });
    expect(shapeToolOutput({ content: [], structuredContent: { n: 1 } }).result.content).toEqual([
      { type: 'text', text: '{"n":1}' },
    ]);
  });
});
