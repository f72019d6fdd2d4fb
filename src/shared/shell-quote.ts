/** Quotes a word for a POSIX shell only when it needs it, so hints print commands a user can paste. */

/** `word` as typed at a shell prompt: unchanged when it holds only safe characters, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
