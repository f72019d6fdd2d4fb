/**
 * A vacuum never interleaves with changes to the index (src/subsystems/memory/index-vacuum.ts): MiniSearch's batched
 * default, walking its term tree across waits, failed with an unhandled rejection when a word added during a wait split
 * an edge of the tree it had not reached yet (found by the simulator, seed 151). Here the memory index discards enough
 * to start a vacuum, then takes words that split old ones while timers run; every search still finds what it should
 * (with MiniSearch's default `autoVacuum`, it fails on the unhandled rejection). The conversation index, which has its
 * own postings, is held to the same.
 */
import { describe, expect, it } from 'vitest';
import { ConversationSearchIndex } from '../../../src/subsystems/conversation/search/conversation-search-index.js';
import { MemoryIndex } from '../../../src/subsystems/memory/memory-index.js';
import { seededRandom } from '../../faults/seeded-random.js';

/** Long random words (long edges in the term tree), and words that share a prefix with one of them and then differ. */
function vocabulary(seed: number) {
  const rng = seededRandom(seed);
  const words: string[] = [];
  const letters = 'bcdfghjklmnpqrstvwxy';
  const fresh = () => {
    let word = '';
    for (let i = 0; i < 10; i += 1) word += letters[rng.int(0, letters.length - 1)];
    words.push(word);
    return word;
  };
  const splitting = () => {
    const old = words[rng.int(0, words.length - 1)]!;
    const at = rng.int(2, 7);
    return `${old.slice(0, at)}a${old.slice(at)}`;
  };
  return {
    text: () => Array.from({ length: 8 }, fresh).join(' '),
    splittingText: () => Array.from({ length: 8 }, splitting).join(' '),
  };
}

const wait = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe('index vacuum', () => {
  it('the memory index takes new words during the vacuum a discard starts, and searches stay right', async () => {
    const words = vocabulary(1);
    const index = new MemoryIndex();
    const texts: string[] = [];
    for (let seq = 0; seq < 3000; seq += 1) {
      texts.push(words.text());
      index.add({ seq, content: texts[seq]! });
    }
    for (let seq = 0; seq < 1000; seq += 1) index.discard(seq);
    for (let round = 0; round < 100; round += 1) {
      for (let i = 0; i < 20; i += 1) index.add({ seq: 10_000 + round * 20 + i, content: words.splittingText() });
      await wait();
    }
    expect(index.search(texts[2500]!.split(' ')[0]!, 5).map((hit) => hit.seq)).toContain(2500);
    expect(index.search(texts[10]!.split(' ')[0]!, 5).map((hit) => hit.seq)).not.toContain(10);
  });

  it('the conversation index does the same', async () => {
    const words = vocabulary(2);
    const index = new ConversationSearchIndex();
    const at = Date.parse('2026-01-01T00:00:00Z');
    const texts = new Map<number, string>();
    const add = (seq: number, text: string) => {
      texts.set(seq, text);
      index.add({ seq, role: 'user', text, at: at + seq });
    };
    for (let seq = 1; seq <= 3000; seq += 1) add(seq, words.text());
    for (let seq = 1; seq <= 1000; seq += 1) index.remove(seq);
    for (let round = 0; round < 100; round += 1) {
      for (let i = 0; i < 20; i += 1) add(10_000 + round * 20 + i, words.splittingText());
      await wait();
    }
    const first = (seq: number) => texts.get(seq)!.split(' ')[0]!;
    expect(index.search(first(2500), { limit: 5 }).map((hit) => hit.seq)).toContain(2500);
    expect(index.search(first(10), { limit: 5 }).map((hit) => hit.seq)).not.toContain(10);
  });
});
