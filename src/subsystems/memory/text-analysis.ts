/**
 * Word analyses for the memory index: what a word of a memory or a query becomes before it is indexed or looked up.
 * Stemming (Porter's algorithm) lets "painting", "painted" and "paints" meet at "paint", so a question worded
 * otherwise than the message it asks about still finds it; the recall benchmark (bench/recall.bench.ts) measures it.
 */
import { stemmer } from 'stemmer';
import { lowerCaseWithoutStopWords } from './memory-index.js';

/** The lower-cased word's Porter stem; stop words are left out (before stemming, so "was" stays out). */
export function stemmedWithoutStopWords(term: string): string | null {
  const word = lowerCaseWithoutStopWords(term);
  return word === null ? null : stemmer(word);
}
