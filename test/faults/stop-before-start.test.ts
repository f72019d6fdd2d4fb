/**
 * Regression test for a bug the fault campaign found: `Runtime.stop()` on a runtime that was created but never
 * started never resolved (`pause()` waited for a heartbeat that was not running), so an embedding program that bailed
 * out before `start()` hung on shutdown with its database open.
 */
import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import type { VigilDb } from '../../src/subsystems/store/vigil-db.js';

describe('Runtime.stop before start', () => {
  it('resolves and closes what the runtime owns', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const runtime = await createRuntime({ db, clock: createSimulatedClock() });
    let bound: NodeJS.Timeout | undefined;
    // A bound, not a sleep: a working stop() resolves in a few milliseconds.
    const hung = new Promise<'hung'>((resolve) => (bound = setTimeout(() => resolve('hung'), 1_000)));
    try {
      expect(await Promise.race([runtime.stop().then(() => 'stopped' as const), hung])).toBe('stopped');
    } finally {
      clearTimeout(bound);
      await db.close();
    }
  });
});
