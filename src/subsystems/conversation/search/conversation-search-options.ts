/**
 * How the conversation index searches: the fields of a `ConversationSearchDocument` and their weights, the word
 * analysis of messages and of queries, no prefix or fuzzy matching, ranked by BM25+. Written as MiniSearch's options
 * (the recall benchmark's steps search with MiniSearch) and read by the runtime's `FieldBm25Index`, which ranks exactly
 * as MiniSearch does with them (field-bm25-index.test.ts), so both search alike; each choice is measured in
 * bench/recall.bench.ts.
 */
import type { Options } from 'minisearch';
import { stemmedQueryWord, stemmedWithoutStopWords } from '../../memory/text-analysis.js';
import type { ConversationSearchDocument } from './conversation-search-document.js';
import type { FieldBm25Options } from './field-bm25-index.js';

/** A document's searched fields. */
export type ConversationSearchField = Exclude<keyof ConversationSearchDocument, 'seq'>;

/** The fields, their weights and the word analyses of the conversation index. */
export const conversationFieldOptions: FieldBm25Options<ConversationSearchField> = {
  fields: ['text', 'speaker', 'date', 'previous'],
  // A message's own words count most; who said it and when weigh more than a word of it (a question names the
  // person and the time, and a name or a month in the speaker or date field is sure to be about this message); the
  // message it follows counts half. (The message after it as a field too bought 0.004 of recall@10 for a third more
  // postings to walk per search and every message indexed twice: the ranking's neighbour lift does that job.)
  boost: { text: 1, speaker: 4, date: 2, previous: 0.5 },
  documentTerm: stemmedWithoutStopWords,
  // Questions ask "how many times has…", "what kind of…": words that say what is asked, not what it is about.
  queryTerm: stemmedQueryWord,
};

/** The same as MiniSearch's options (the recall benchmark's steps towards the conversation search). */
export const conversationSearchOptions: Options<ConversationSearchDocument> = {
  idField: 'seq',
  fields: [...conversationFieldOptions.fields],
  processTerm: conversationFieldOptions.documentTerm,
  searchOptions: {
    boost: conversationFieldOptions.boost,
    processTerm: conversationFieldOptions.queryTerm,
    // Exact words only: prefix and fuzzy matching bought nothing on the benchmark (its questions are whole, correctly
    // spelt words) and cost several times the lookups.
    prefix: false,
    fuzzy: false,
    combineWith: 'OR',
  },
};
