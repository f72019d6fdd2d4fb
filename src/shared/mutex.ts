/** A promise mutex: runs critical sections one at a time, in call order. */

/** Runs `fn` exclusively. */
export interface Mutex {
  run<T>(fn: () => Promise<T>): Promise<T>;
}

/** A new, unlocked mutex. */
export function createMutex(): Mutex {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(fn: () => Promise<T>): Promise<T> {
      const result = tail.then(fn);
      // The next section waits for this one whether it succeeded or not.
      tail = result.catch(() => undefined);
      return result;
    },
  };
}
