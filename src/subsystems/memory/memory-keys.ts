/** Long-term memory's keys and ids: a memory is its seq, in the store (a zero-padded key) and to clients (`mem-<seq>`). */

// Number.MAX_SAFE_INTEGER has 16 digits: zero-padded keys sort numerically.
const SEQ_WIDTH = 16;

/** The key of memory `seq`: a number only, so no user text is ever part of a key. */
export function memorySeqKey(seq: number): string {
  return String(seq).padStart(SEQ_WIDTH, '0');
}

/** The id of memory `seq`. */
export function memoryIdOf(seq: number): string {
  return `mem-${seq}`;
}

const ID_PATTERN = /^mem-([1-9][0-9]{0,15})$/;

/** The seq of memory id `id`, or undefined when `id` is not a memory id. */
export function memorySeqOf(id: string): number | undefined {
  const match = ID_PATTERN.exec(id);
  return match === null ? undefined : Number(match[1]);
}
