/** What of an older message a think is shown: only a message that says a query word itself, cut around that word. */
import { describe, expect, it } from 'vitest';
import { excerptAround, firstMatchAt, queryStems } from '../../../src/subsystems/memory/recall-excerpt.js';
import { estimateTokens } from '../../../src/subsystems/thinking/token-estimate.js';

const padding = (words: number, word = 'meanwhile') => Array.from({ length: words }, () => word).join(' ');

describe('a recalled excerpt', () => {
  it('matches query words by their stems, without stop words or question words', () => {
    const stems = queryStems('What is the name of the paintings I mentioned?');
    expect([...stems].sort()).toEqual(['mention', 'name', 'paint']);
    expect(firstMatchAt('She painted the fence.', stems)).toBe(4);
    // Said only around it (a reply to the question): the message itself says none of the words.
    expect(firstMatchAt('noted (t-1)', stems)).toBe(-1);
    expect(firstMatchAt('anything', new Set())).toBe(-1);
  });

  it('keeps a message that fits whole', () => {
    expect(excerptAround('The vault code is 4417.', 4, 100)).toBe('The vault code is 4417.');
  });

  it('cuts a long message around its matched word, at word boundaries, within the tokens given', () => {
    const text = `${padding(200)} The vault code is 4417. ${padding(200, 'afterwards')}`;
    const at = firstMatchAt(text, queryStems('vault code'));
    const excerpt = excerptAround(text, at, 60);
    expect(excerpt).toContain('The vault code is 4417.');
    expect(excerpt.startsWith('…meanwhile')).toBe(true);
    expect(excerpt.endsWith('afterwards…')).toBe(true);
    expect(estimateTokens(excerpt)).toBeLessThanOrEqual(60);
  });

  it('starts at the beginning when the word is there, and stays within its tokens in multi-byte text', () => {
    const text = `Vault ${padding(300)}`;
    const excerpt = excerptAround(text, 0, 40);
    expect(excerpt.startsWith('Vault meanwhile')).toBe(true);
    expect(excerpt.endsWith('…')).toBe(true);
    const wide = `${'日本語のテキスト'.repeat(100)} vault ${'また'.repeat(300)}`;
    const cut = excerptAround(wide, wide.indexOf('vault'), 50);
    expect(cut).toContain('vault');
    expect(estimateTokens(cut)).toBeLessThanOrEqual(50);
  });
});
