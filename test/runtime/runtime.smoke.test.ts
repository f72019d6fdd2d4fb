import { describe, expect, it } from 'vitest';
import { startRuntime } from '../fixtures/runtime.fixture.js';

describe('Runtime (smoke)', () => {
  it('beats on simulated time and checkpoints every 5 beats', async () => {
    const h = await startRuntime();
    await h.advance(12_000);
    const beats = h.ofType('heartbeat.beat');
    expect(beats.length).toBeGreaterThanOrEqual(12);
    expect(h.ofType('checkpoint.created').length).toBe(2);
    await h.stop();
  });
});
