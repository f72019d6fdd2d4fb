/**
 * How the conversation index searches: MiniSearch's options for `ConversationSearchDocument`s (the fields and their
 * weights, the word analysis of messages and of queries, prefix and fuzzy matching). One constant, so the runtime's
 * index and the recall benchmark (bench/recall.bench.ts) search exactly alike; each choice is measured there.
 */
import type { Options } from 'minisearch';
import { inOneBatchAutoVacuum } from '../../memory/index-vacuum.js';
import { stemmedQueryWord, stemmedWithoutStopWords } from '../../memory/text-analysis.js';
import type { ConversationSearchDocument } from './conversation-search-document.js';

/** The MiniSearch options of the conversation index. */
export const conversationSearchOptions: Options<ConversationSearchDocument> = {
  idField: 'seq',
  fields: ['text', 'speaker', 'date', 'previous'],
  processTerm: stemmedWithoutStopWords,
  // Retention `discard`s old messages; the vacuum that follows must not interleave with the adds (index-vacuum.ts).
  autoVacuum: inOneBatchAutoVacuum,
  searchOptions: {
    // A message's own words count most; who said it and when weigh more than a word of it (a question names the
    // person and the time, and a name or a month in the speaker or date field is sure to be about this message); the
    // message it follows counts half. (The message after it as a field too bought 0.004 of recall@10 for a third more
    // postings to walk per search and every message indexed twice: the ranking's neighbour lift does that job.)
    boost: { text: 1, speaker: 4, date: 2, previous: 0.5 },
    // Questions ask "how many times has…", "what kind of…": words that say what is asked, not what it is about.
    processTerm: stemmedQueryWord,
    // Exact words only: prefix and fuzzy matching bought nothing on the benchmark (its questions are whole, correctly
    // spelt words) and cost several times the lookups.
    prefix: false,
    fuzzy: false,
    combineWith: 'OR',
  },
};
