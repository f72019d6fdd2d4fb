/**
 * Word analyses for the memory and conversation indexes: what a word of a memory, a message or a query becomes before
 * it is indexed or looked up. Stemming (Porter's algorithm) lets "painting", "painted" and "paints" meet at "paint", so
 * a question worded otherwise than the message it asks about still finds it; the recall benchmark
 * (bench/recall.bench.ts) measures it.
 */
import { stemmer } from 'stemmer';

// Words too common to tell memories apart: they would match nearly every memory and only slow a search down.
const STOP_WORDS = new Set(
  (
    'a an and are as at be but by do does did for from had has have he her his i if in into is it its me my no not of ' +
    'on or our she so than that the their them then there these they this to was we were what when where which who ' +
    'why will with you your yours'
  ).split(' '),
);

/** Terms are lower-cased words; stop words are left out of both documents and queries. */
export function lowerCaseWithoutStopWords(term: string): string | null {
  const lower = term.toLowerCase();
  return lower.length === 0 || STOP_WORDS.has(lower) ? null : lower;
}

/** The lower-cased word's Porter stem; stop words are left out (before stemming, so "was" stays out). */
export function stemmedWithoutStopWords(term: string): string | null {
  const word = lowerCaseWithoutStopWords(term);
  return word === null ? null : stemmer(word);
}

// The words of a question that say what kind of answer is wanted ("how many times", "what kind of", "would she
// likely"), not what it is about: they would only find messages that happen to use them. Stop words are out already.
const QUESTION_WORDS = new Set('could how kind likely many might much sort type whom whose would'.split(' '));

/** A query's word, as `stemmedWithoutStopWords`, with the question's own words left out too. */
export function stemmedQueryWord(term: string): string | null {
  return QUESTION_WORDS.has(term.toLowerCase()) ? null : stemmedWithoutStopWords(term);
}
