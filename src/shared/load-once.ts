/**
 * A module loaded at its first use and once only: later uses await the same settled promise, not another `import()`.
 * What a lazy load costs a replay: an `import()` resolves after real I/O, at a moment no simulated clock decides; a
 * host that must replay runs exactly (the simulator) calls the loader before its first step, and from then on every
 * use is a settled promise, whose `await` is ordered by microtasks alone.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}
