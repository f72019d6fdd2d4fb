/** MCP tool calls through a whole runtime (offline thinker, `/tool`): the round trip, and a crash between intent and result. */
import { join } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { EventBus } from '../../src/events/event-bus.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import type { VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { ToolCallLog } from '../../src/subsystems/tools/tool-call-log.js';
import { startRuntime } from '../fixtures/runtime.fixture.js';
import { stdioFixture } from '../subsystems/tools/mcp-hub.fixture.js';
import { calls, until, useCleanups } from './runtime-tools.fixture.js';

const { cleanups, tempDir } = useCleanups('vigil-runtime-tools-');

/** A copy of everything `db` holds now. */
async function snapshot(db: VigilDb): Promise<VigilDb> {
  const copy = new MemoryLevel() as unknown as VigilDb;
  for await (const [key, value] of db.iterator()) await copy.put(key, value);
  return copy;
}

const mcpConfig = (countFile: string) => ({
  mcp: { mcpServers: { fixture: stdioFixture({ FIXTURE_COUNT_FILE: countFile }) } },
});

describe('MCP tools in a runtime', () => {
  it('answers `/tool NAME {json}` with the tool’s result through the durable path (offline thinker)', async () => {
    const countFile = join(tempDir(), 'count');
    const h = await startRuntime({ config: mcpConfig(countFile) });
    cleanups.push(() => h.runtime.stop());
    await until(h, () => h.ofType('mcp.server_up').length === 1);
    const { turnId } = await h.runtime.send({ text: '/tool fixture__tally {"text": "hello tools"}' });
    await until(h, () => h.ofType('agent.reply').length === 1);
    expect(h.ofType('agent.reply')).toMatchObject([{ turnId, text: 'mcp__fixture__tally returned:\nhello tools' }]);
    expect(calls(countFile)).toBe(1);
    // What the tool said is kept in long-term memory as the tool's.
    expect(await h.runtime.searchMemory({ query: 'hello tools' })).toMatchObject([
      { content: 'mcp__fixture__tally returned: hello tools', source: 'tool' },
    ]);
    expect(h.ofType('tool.called')).toMatchObject([{ turnId, name: 'mcp__fixture__tally' }]);
    expect(h.ofType('tool.completed')).toMatchObject([{ name: 'mcp__fixture__tally', ok: true }]);

    const { turnId: bad } = await h.runtime.send({ text: '/tool fixture__tally {"text": 7}' });
    await until(h, () => h.ofType('agent.reply').length === 2);
    expect(h.ofType('agent.reply')[1]).toMatchObject({
      turnId: bad,
      text: expect.stringMatching(/^mcp__fixture__tally failed:\n.*input schema/s),
    });
    expect(calls(countFile)).toBe(1);
    const metrics = await h.metrics.text();
    expect(metrics).toContain('vigil_tool_calls_total{tool="mcp__fixture__tally",outcome="ok"} 1');
    expect(metrics).toContain('vigil_tool_calls_total{tool="mcp__fixture__tally",outcome="failed"} 1');
  });

  it('after a crash between intent and result: tool.interrupted once, the call not run again, the turn told and ended once', async () => {
    const countFile = join(tempDir(), 'count');
    const h = await startRuntime({ config: mcpConfig(countFile) });
    // The crashed runtime's servers are stopped last: as after kill -9, nothing it does after the crash reaches the db first.
    cleanups.push(() => (h.runtime as unknown as { core: { parts: { close(): Promise<void> } } }).core.parts.close());
    await until(h, () => h.ofType('mcp.server_up').length === 1);
    const { turnId } = await h.runtime.send({ text: '/tool fixture__hang' });
    await until(h, () => h.ofType('tool.called').length === 1 && calls(countFile) === 1);
    // The crash: what is on disk now is all a successor sees. (Stopping the old heartbeat aborts its think, whose
    // result write a real kill -9 would never make, so the successor gets a copy taken before.)
    const db = await snapshot(h.db);
    await h.crash();

    const restart = async () => {
      const clock = createSimulatedClock(h.clock.now());
      const bus = new EventBus({ clock, currentBeat: () => 0 });
      const events: VigilEvent[] = [];
      // Subscribed before the boot: the interruption is reported while the runtime is built.
      bus.events$.subscribe((event) => events.push(event));
      const next = await startRuntime({ db, clock, bus, config: mcpConfig(countFile) });
      cleanups.push(() => next.runtime.stop());
      return { next, events };
    };
    const { next, events } = await restart();
    const callId = h.ofType('tool.called')[0]!.callId;
    expect(events.filter((e) => e.type === 'tool.interrupted')).toEqual([
      expect.objectContaining({ callId, name: 'mcp__fixture__hang' }),
    ]);
    await until(next, () => events.some((e) => e.type === 'agent.reply' || e.type === 'agent.unanswered'));
    const endings = events.filter((e) => e.type === 'agent.reply' || e.type === 'agent.unanswered');
    expect(endings).toEqual([
      expect.objectContaining({
        type: 'agent.reply',
        turnId,
        text: expect.stringMatching(/interrupted by a restart: its outcome is unknown\. It was not run again/),
      }),
    ]);
    await next.advance(5000);
    expect(calls(countFile)).toBe(1);
    expect(events.filter((e) => e.type === 'tool.called')).toEqual([]);

    // Reported once: a second boot on the same db says nothing more.
    await next.runtime.stop();
    const again = await restart();
    expect(again.events.filter((e) => e.type === 'tool.interrupted')).toEqual([]);
    const [record] = await (await ToolCallLog.open(db)).all();
    expect(record).toMatchObject({ callId, interruptedReported: true });
    expect(record!.result).toBeUndefined();
  });
});
