/**
 * A memory the agent recalls into a think is in use: its `recalledAt` is written (at most once a day), so retention
 * (VIGIL_MEMORY_MAX_COUNT) counts it as fresh rather than by the day it was kept.
 */
import { describe, expect, it } from 'vitest';
import type { StoredMemory } from '../../src/protocol/memory.schema.js';
import { memorySeqKey } from '../../src/subsystems/memory/memory-keys.js';
import { SUBLEVELS } from '../../src/subsystems/store/vigil-db.js';
import { useRuntimes, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';

const start = useRuntimes();
const DAY_MS = 86_400_000;

async function stored(h: RuntimeHarness, seq: number): Promise<StoredMemory | undefined> {
  const records = h.db.sublevel<string, StoredMemory>(SUBLEVELS.longTermMemory, { valueEncoding: 'json' });
  return records.get(memorySeqKey(seq));
}

async function answered(h: RuntimeHarness, text: string): Promise<void> {
  const { turnId } = await h.runtime.send({ text });
  for (let i = 0; i < 100 && !h.ofType('agent.reply').some((e) => e.turnId === turnId); i += 1)
    await h.advance(1_000, 250);
  expect(h.ofType('agent.reply').map((e) => e.turnId)).toContain(turnId);
}

describe('long-term memory in use', () => {
  it('writes recalledAt for a memory recalled into a think, once a day at most', async () => {
    const thinker = new ScriptedThinker((input) => [
      ...(input.pendingMessages.some((m) => m.text.startsWith('Note'))
        ? [{ type: 'remember' as const, content: 'The gate code is 4711.', salience: 0.9, keep: true }]
        : []),
      ...input.pendingMessages.map((m) => ({ type: 'reply' as const, turnId: m.turnId, text: 'Noted.' })),
    ]);
    const h = await start({ thinker });
    await answered(h, 'Note the gate code: 4711.');
    expect((await h.runtime.searchMemory({ query: 'gate code' }))[0]).not.toHaveProperty('recalledAt');
    const kept = await stored(h, 1);
    expect(kept).toMatchObject({ content: 'The gate code is 4711.' });
    expect(kept!.recalledAt).toBeUndefined();

    // Two days later the agent is asked; the memory is recalled into that think.
    h.clock.set(h.clock.now() + 2 * DAY_MS);
    await answered(h, 'What is the gate code?');
    const asked = thinker.calls.find((input) => input.pendingMessages.some((m) => m.text.startsWith('What')));
    expect(asked?.recalledMemories?.map((m) => m.id)).toEqual(['mem-1']);
    // memory.search shows it, so an operator can see why a memory outlives its peers.
    const [hit] = await h.runtime.searchMemory({ query: 'gate code' });
    expect(hit?.recalledAt).toBe(new Date(asked!.now).toISOString());
    expect((await stored(h, 1))?.recalledAt).toBe(asked!.now);

    // Asked again within the day: in use already, nothing new written.
    await answered(h, 'What was the gate code again?');
    await h.runtime.searchMemory({ query: 'gate code' });
    expect((await stored(h, 1))?.recalledAt).toBe(asked!.now);
  });
});
