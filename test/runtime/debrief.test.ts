import { describe, expect, it } from 'vitest';
import { delay } from '../../src/shared/clock.js';
import { DEBRIEF_PROMPT } from '../../src/heartbeat/turn-tracker.js';
import { useRuntimes, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';

const start = useRuntimes();

/** A thinker whose user turns take `turnMs` of simulated time and whose debriefs are quick. */
function timedThinker(getClock: () => RuntimeHarness['clock'], turnMs: number): ScriptedThinker {
  return new ScriptedThinker(async (input) => {
    if (input.reason === 'debrief') return [{ type: 'remember', content: 'checked the work', salience: 0.7 }];
    await delay(getClock(), turnMs);
    return input.pendingMessages.map((m) => ({ type: 'reply' as const, turnId: m.turnId, text: `re: ${m.text}` }));
  });
}

describe('debrief', () => {
  it('is injected after a turn of 30 s, once, never as user input, and leaves unread replies alone', async () => {
    let h!: RuntimeHarness;
    const thinker = timedThinker(() => h.clock, 30_000);
    h = await start({ thinker });
    await h.runtime.send({ text: 'a long job' });
    await h.advance(32_000);
    expect(h.ofType('agent.reply')).toHaveLength(1);
    expect(h.runtime.status().unreadReplies).toBe(1);
    await h.advance(5_000);
    expect(h.ofType('agent.debrief')).toHaveLength(1);
    const debriefThink = thinker.calls.find((c) => c.reason === 'debrief')!;
    expect(debriefThink.notices).toContain(DEBRIEF_PROMPT);
    expect(debriefThink.pendingMessages).toEqual([]);
    // The quick debrief answer does not earn another debrief.
    await h.advance(60_000);
    expect(h.ofType('agent.debrief')).toHaveLength(1);
    expect(h.runtime.status().unreadReplies).toBe(1);
    const logged = await (await h.conversation()).readAfter(0);
    expect(logged.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('is not injected after a 10 s turn', async () => {
    const h: RuntimeHarness = await start({ thinker: timedThinker(() => h.clock, 10_000) });
    await h.runtime.send({ text: 'a short job' });
    await h.advance(60_000);
    expect(h.ofType('agent.reply')).toHaveLength(1);
    expect(h.ofType('agent.debrief')).toHaveLength(0);
  });

  it('is injected once, 5 s after a restart that cut a turn short', async () => {
    let h!: RuntimeHarness;
    const thinker = timedThinker(() => h.clock, 3_600_000);
    h = await start({ thinker });
    await h.runtime.send({ text: 'a job the crash interrupts' });
    await h.advance(3000);
    expect(h.runtime.status().phase).toBe('think');
    await h.crash();

    const quick = timedThinker(() => again.clock, 0);
    const again = await start({ db: h.db, clock: h.clock, thinker: quick });
    await again.advance(4000);
    expect(again.ofType('agent.debrief')).toHaveLength(0);
    await again.advance(2000);
    expect(again.ofType('agent.debrief')).toHaveLength(1);
    await again.advance(60_000);
    expect(again.ofType('agent.debrief')).toHaveLength(1);
  });

  it('is never injected after a restart of an idle agent, which costs nothing', async () => {
    let h!: RuntimeHarness;
    const thinker = timedThinker(() => h.clock, 1000);
    h = await start({ thinker });
    await h.runtime.send({ text: 'done quickly' });
    await h.advance(5000);
    await h.crash();
    const quiet = new ScriptedThinker();
    const again = await start({ db: h.db, clock: h.clock, thinker: quiet });
    await again.advance(60_000);
    expect(again.ofType('agent.debrief')).toHaveLength(0);
    expect(quiet.calls).toHaveLength(0);
  });
});
