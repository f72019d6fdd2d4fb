/**
 * The full-text index of long-term memory: MiniSearch (BM25+ ranking) over each memory's content, with prefix and
 * fuzzy matching. In memory only; it is rebuilt from the store at boot, so it can never disagree with it after a crash.
 */
import MiniSearch, { type SearchOptions, type SearchResult } from 'minisearch';
import { inOneBatchAutoVacuum } from './index-vacuum.js';
import { lowerCaseWithoutStopWords } from './text-analysis.js';

// Where the recall benchmark and older callers find it; it lives beside the other analyses, which need no MiniSearch.
export { lowerCaseWithoutStopWords };

/** One indexed memory: its seq and the text searched. */
export interface IndexedMemory {
  seq: number;
  content: string;
}

/** A hit: the memory's seq and its relevance. */
export interface IndexHit {
  seq: number;
  score: number;
}

/** Turns one word of a memory or a query into the term indexed and looked up, or null to leave it out. */
export type TermProcessor = (term: string) => string | null;

const SEARCH_OPTIONS: SearchOptions = {
  // Prefix matching from three letters ("encr" finds "encryption"), fuzzy (edit distance ≤ 20 % of the term, at
  // most 2) from five: shorter terms would match too much by accident.
  prefix: (term) => term.length >= 3,
  fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
  maxFuzzy: 2,
  combineWith: 'OR',
};

const EXACT_ONLY: SearchOptions = { prefix: false, fuzzy: false, combineWith: 'OR' };
const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];

/** True when each searchable word of `query` matched some memory exactly. */
function everyTermFound(query: string, results: readonly SearchResult[], processTerm: TermProcessor): boolean {
  const found = new Set(results.flatMap((result) => result.queryTerms));
  return tokenize(query).every((token) => {
    const term = processTerm(token);
    return term === null || found.has(term);
  });
}

/** The index. Not persisted: a serialized copy would be one more thing to keep in step with the store. */
export class MemoryIndex {
  private readonly search$: MiniSearch<IndexedMemory>;

  /** `processTerm` is the analysis of words (the recall benchmark compares others); the runtime uses the default. */
  constructor(private readonly processTerm: TermProcessor = lowerCaseWithoutStopWords) {
    this.search$ = new MiniSearch<IndexedMemory>({
      idField: 'seq',
      fields: ['content'],
      processTerm,
      searchOptions: SEARCH_OPTIONS,
      // `discard` starts a vacuum that must not interleave with the adds (index-vacuum.ts).
      autoVacuum: inOneBatchAutoVacuum,
    });
  }

  /** How many memories are indexed. */
  get size(): number {
    return this.search$.documentCount;
  }

  /** True when memory `seq` is indexed. */
  has(seq: number): boolean {
    return this.search$.has(seq);
  }

  /** Indexes a memory (which must not be indexed yet). */
  add(memory: IndexedMemory): void {
    this.search$.add({ seq: memory.seq, content: memory.content });
  }

  /**
   * Removes document `seq` without its text (MiniSearch drops it from results at once and from the inverted index at
   * its next vacuum): for an index whose documents are not kept in memory, such as the conversation's.
   */
  discard(seq: number): void {
    if (this.search$.has(seq)) this.search$.discard(seq);
  }

  /** Removes a memory at once from the inverted index; `memory` must be as it was indexed. */
  remove(memory: IndexedMemory): void {
    if (this.search$.has(memory.seq)) this.search$.remove({ seq: memory.seq, content: memory.content });
  }

  /**
   * The best `limit` memories for `query`, best first; a query of stop words only finds nothing. The exact words are
   * looked up first: when every word of the query is in the index and they fill the page, the prefix and fuzzy
   * expansion (several times the cost) is skipped, since it would mostly add variants BM25 ranks below them. A word
   * cut short or misspelt is not in the index, so such queries always get the expansion. Only documents `accept`
   * takes (all when absent) are found.
   */
  search(query: string, limit: number, accept?: (seq: number) => boolean): IndexHit[] {
    if (limit <= 0) return [];
    // Filtered inside the search, so a page of `limit` is made of accepted documents only (a time window, say).
    const filter = accept === undefined ? {} : { filter: (result: SearchResult) => accept(result.id as number) };
    const exact = this.search$.search(query, { ...EXACT_ONLY, ...filter });
    const hits =
      exact.length >= limit && everyTermFound(query, exact, this.processTerm)
        ? exact
        : this.search$.search(query, filter);
    return hits.slice(0, limit).map((hit) => ({ seq: hit.id as number, score: hit.score }));
  }
}
