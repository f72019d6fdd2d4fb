/**
 * How the conversation index searches: MiniSearch's options for `ConversationSearchDocument`s (the fields and their
 * weights, the word analysis, the BM25 parameters, prefix and fuzzy matching). One constant, so the runtime's index
 * and the recall benchmark (bench/recall.bench.ts) search exactly alike.
 */
import type { Options } from 'minisearch';
import { stemmedWithoutStopWords } from '../../memory/text-analysis.js';
import type { ConversationSearchDocument } from './conversation-search-document.js';

/** The MiniSearch options of the conversation index. */
export const conversationSearchOptions: Options<ConversationSearchDocument> = {
  idField: 'seq',
  fields: ['text', 'speaker', 'date', 'previous'],
  processTerm: stemmedWithoutStopWords,
  searchOptions: {
    boost: { text: 1, speaker: 1, date: 1, previous: 0.5 },
    prefix: false,
    fuzzy: false,
    combineWith: 'OR',
  },
};
