/**
 * Regression test for a bug the crash loop found: a message acknowledged before the first checkpoint ever was lost
 * by a crash, because a cold start never read the conversation log. A cold start now replays the whole log, as a
 * restore replays what was logged after its checkpoint.
 */
import { describe, expect, it } from 'vitest';
import { startRuntime } from '../fixtures/runtime.fixture.js';

describe('a cold start after a crash', () => {
  it('answers a message acknowledged before the first checkpoint', async () => {
    // No periodic checkpoint for a long while: the crash comes before the first one.
    const first = await startRuntime({ config: { checkpointIntervalBeats: 1_000 } });
    const { turnId } = await first.runtime.send({ text: 'Are you there?' });
    expect(first.ofType('agent.reply')).toEqual([]);
    await first.crash();

    const second = await startRuntime({ db: first.db, clock: first.clock, config: { checkpointIntervalBeats: 1_000 } });
    try {
      expect(second.runtime.status().restoredFrom).toBeNull();
      await second.advance(5_000);
      expect(second.ofType('agent.reply').map((e) => e.turnId)).toContain(turnId);
    } finally {
      await second.stop();
    }
  });
});
