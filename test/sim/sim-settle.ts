/** Letting a step's work finish before simulated time moves on: every microtask and setImmediate chain runs out. */

/**
 * Resolves once no `setImmediate` callback is waiting two rounds in a row and `busy` (the disk's operations in
 * flight, which an on-disk store answers from its thread pool) reports none: whatever a step started has run as far
 * as it can without simulated time passing.
 */
export async function settle(busy: () => Promise<void> | null = () => null, maxRounds = 100_000): Promise<void> {
  let quiet = 0;
  for (let round = 0; quiet < 2 && round < maxRounds; round += 1) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const waiting = busy();
    if (waiting !== null) {
      await waiting;
      quiet = 0;
      continue;
    }
    quiet = process.getActiveResourcesInfo().includes('Immediate') ? 0 : quiet + 1;
  }
}
