/** What makes two memories "the same fact": content compared after normalising case, width, spacing and end punctuation. */
import { createHash } from 'node:crypto';

/** `content` normalised for comparison: NFKC, lower case, runs of white space as one space, no trailing full stop. */
export function normaliseMemoryText(content: string): string {
  return content
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/[.!。]+$/u, '')
    .trim();
}

/** The dedupe key of `content`: a SHA-256 of its normalised text. Kept in memory only, never in a LevelDB key. */
export function memoryContentHash(content: string): string {
  return createHash('sha256').update(normaliseMemoryText(content)).digest('hex');
}
