import { afterEach, describe, expect, it } from 'vitest';
import { CIRCUIT_FAILURE_THRESHOLD } from '../../src/heartbeat/circuit-breaker.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';

let h: RuntimeHarness | undefined;
afterEach(async () => {
  await h?.runtime.stop().catch(() => undefined);
  h = undefined;
});

describe('heartbeat supervision', () => {
  it('restarts a crashed actor from its last good state and keeps beating', async () => {
    // A thinker that hands the affect actor an out-of-range appraisal: its event schema rejects it and the actor fails.
    const thinker = new ScriptedThinker((input) =>
      input.pendingMessages.flatMap((m) => [
        m.text === 'provoke'
          ? { type: 'feel' as const, delta: { valence: 0.5 }, intensity: 5 }
          : { type: 'feel' as const, delta: { valence: 0.5 }, intensity: 1 },
        { type: 'reply' as const, turnId: m.turnId, text: 'noted' },
      ]),
    );
    h = await startRuntime({ thinker });
    await h.advance(2000);
    const before = h.runtime.getAffect();
    await h.runtime.send({ text: 'provoke' });
    await h.advance(1000);

    expect(h.ofType('actor.crashed')).toMatchObject([{ actor: 'affect', error: expect.stringMatching(/intensity/i) }]);
    expect(h.ofType('actor.restarted')).toMatchObject([{ actor: 'affect' }]);
    expect(h.runtime.getAffect().valence).toBeCloseTo(before.valence, 1);

    // The restarted actor works: the beat goes on and the next appraisal moves it.
    const beats = h.ofType('heartbeat.beat').length;
    const calm = h.runtime.getAffect().valence;
    await h.runtime.send({ text: 'cheer' });
    await h.advance(3000);
    expect(h.ofType('heartbeat.beat').length).toBe(beats + 3);
    expect(h.runtime.getAffect().valence).toBeGreaterThan(calm + 0.3);
    expect(h.ofType('actor.crashed')).toHaveLength(1);
  });

  it('opens the circuit after 10 failed beats, backs off exponentially, and closes on the first good beat', async () => {
    let failing = true;
    const thinker = new ScriptedThinker(() => {
      if (failing) throw new Error('model unavailable');
      return [];
    });
    h = await startRuntime({ thinker });
    h.runtime.addGoal({ title: 'always due', dueAt: '2026-01-01T00:00:00.000Z' });
    await h.advance(CIRCUIT_FAILURE_THRESHOLD * 1000);
    expect(h.ofType('think.failed')).toHaveLength(CIRCUIT_FAILURE_THRESHOLD);
    expect(h.ofType('heartbeat.circuit_open')).toMatchObject([{ consecutiveFailures: CIRCUIT_FAILURE_THRESHOLD }]);
    expect(h.ofType('heartbeat.beat').at(-1)).toMatchObject({ intervalMs: 2000 });

    await h.advance(2000);
    expect(h.ofType('heartbeat.beat').at(-1)).toMatchObject({ intervalMs: 4000 });
    await h.advance(4000);
    expect(h.ofType('heartbeat.beat').at(-1)).toMatchObject({ intervalMs: 8000 });

    failing = false;
    await h.advance(8000);
    expect(h.ofType('heartbeat.circuit_closed')).toMatchObject([{ afterFailures: CIRCUIT_FAILURE_THRESHOLD + 2 }]);
    expect(h.ofType('heartbeat.beat').at(-1)).toMatchObject({ intervalMs: 1000 });
    expect(h.runtime.status().consecutiveFailures).toBe(0);
  });

  it('pauses at a beat boundary: restore and stop never interleave with a think', async () => {
    let release: (() => void) | undefined;
    const thinker = new ScriptedThinker(async (input) => {
      await new Promise<void>((resolve) => (release = resolve));
      return input.pendingMessages.map((m) => ({ type: 'reply' as const, turnId: m.turnId, text: 'late but whole' }));
    });
    h = await startRuntime({ thinker });
    await h.runtime.send({ text: 'slow question' });
    await h.advance(1000);
    expect(h.runtime.status().phase).toBe('think');
    const stopping = h.runtime.stop();
    await h.settle();
    expect(h.ofType('heartbeat.stopped')).toHaveLength(0);
    release!();
    await stopping;
    expect(h.ofType('agent.reply')).toMatchObject([{ text: 'late but whole' }]);
    expect(h.ofType('heartbeat.stopped')).toHaveLength(1);
    h = undefined;
  });
});
