/**
 * GitHub's heading anchors, as github-slugger (the library GitHub's own renderer follows) makes them: the heading's
 * text in lower case, every character but letters, marks, digits, `_`, `-` and spaces removed, spaces turned into
 * `-`; a slug seen before in the same document gets `-1`, `-2`, … Written out here (a dozen lines) rather than added as
 * a dependency.
 */

/** The slug of one heading's text, before de-duplication. */
export function slugOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Slugs for the headings of one document, in order: repeats are numbered as GitHub numbers them. */
export class GithubSlugger {
  private readonly occurrences = new Map<string, number>();

  slug(text: string): string {
    const original = slugOf(text);
    let result = original;
    while (this.occurrences.has(result)) {
      const count = (this.occurrences.get(original) ?? 0) + 1;
      this.occurrences.set(original, count);
      result = `${original}-${count}`;
    }
    this.occurrences.set(result, 0);
    return result;
  }
}
