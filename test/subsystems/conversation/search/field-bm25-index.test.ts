/** FieldBm25Index ranks exactly as MiniSearch does with the conversation's options, also after removals and a compaction. */
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { FieldBm25Index } from '../../../../src/subsystems/conversation/search/field-bm25-index.js';
import { stemmedQueryWord, stemmedWithoutStopWords } from '../../../../src/subsystems/memory/text-analysis.js';
import { seededRandom } from '../../../faults/seeded-random.js';

type Field = 'text' | 'speaker' | 'previous';
const FIELDS: readonly Field[] = ['text', 'speaker', 'previous'];
const BOOST = { text: 1, speaker: 4, previous: 0.5 };
const WORDS =
  'kite red flew hill wind painting painted garden book Piranesi sister Lisbon weather the was of how many'.split(' ');

function corpus(count: number, random: () => number) {
  const sentence = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    text: `${sentence(1 + Math.floor(random() * 12))}!`,
    speaker: i % 2 === 0 ? 'Caroline' : 'Melanie',
    previous: i === 0 ? '' : sentence(3),
  }));
}

function pair() {
  const mini = new MiniSearch<{ id: number } & Record<Field, string>>({
    fields: [...FIELDS],
    processTerm: stemmedWithoutStopWords,
    searchOptions: { boost: BOOST, processTerm: stemmedQueryWord, combineWith: 'OR' },
  });
  const ours = new FieldBm25Index<Field>({
    fields: FIELDS,
    boost: BOOST,
    documentTerm: stemmedWithoutStopWords,
    queryTerm: stemmedQueryWord,
  });
  return { mini, ours };
}

const QUERIES = ['kite', 'red kite hill', 'how many paintings did Caroline paint', 'Piranesi Piranesi book', 'the of'];

function expectSameRanking(mini: MiniSearch<never>, ours: FieldBm25Index<Field>, limit: number): void {
  for (const query of QUERIES) {
    const expected = mini
      .search(query)
      .map((hit) => ({ id: hit.id as number, score: hit.score }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, limit);
    const found = ours.search(query, limit);
    expect(
      found.map((hit) => hit.id),
      query,
    ).toEqual(expected.map((hit) => hit.id));
    found.forEach((hit, i) => expect(hit.score, `${query} #${hit.id}`).toBeCloseTo(expected[i]!.score, 9));
  }
}

describe('FieldBm25Index', () => {
  it('scores and orders as MiniSearch with the same fields, weights and word analyses', () => {
    const { mini, ours } = pair();
    const documents = corpus(400, seededRandom(7).next);
    mini.addAll(documents);
    for (const { id, ...fields } of documents) ours.add(id, fields);
    expect(ours.size).toBe(400);
    expectSameRanking(mini, ours, 50);
    expect(ours.search('the of', 10)).toEqual([]);
    expect(ours.search('kite', 0)).toEqual([]);
  });

  it('still does after removals, before and after the compaction that drops the removed from its postings', () => {
    const { mini, ours } = pair();
    const random = seededRandom(11).next;
    const documents = corpus(3000, random);
    mini.addAll(documents);
    for (const { id, ...fields } of documents) ours.add(id, fields);
    // 200 removals: below the compaction's threshold; then 300 more: past it.
    for (const batch of [documents.slice(0, 200), documents.slice(200, 500)]) {
      for (const document of batch) {
        mini.remove(document);
        expect(ours.remove(document.id)).toBe(true);
      }
      expect(ours.size).toBe(mini.documentCount);
      expectSameRanking(mini, ours, 30);
    }
    expect(ours.has(1)).toBe(false);
    expect(ours.remove(1)).toBe(false);
    // Added again after its removal, a document is found again.
    ours.add(1, { text: 'a unique zeppelin', speaker: 'Caroline', previous: '' });
    expect(ours.search('zeppelin', 5).map((hit) => hit.id)).toEqual([1]);
  });

  it('keeps to the documents `accept` takes, still returning a full page', () => {
    const { ours } = pair();
    for (const { id, ...fields } of corpus(200, seededRandom(3).next)) ours.add(id, fields);
    const even = ours.search('kite red', 10, (id) => id % 2 === 0);
    expect(even).toHaveLength(10);
    expect(even.every((hit) => hit.id % 2 === 0)).toBe(true);
  });
});
