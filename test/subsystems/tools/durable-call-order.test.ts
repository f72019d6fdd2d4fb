/** The order of a durable call's steps: intent on disk, the request out, tool.called published, the result written after the call returns. */
import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { EventBus } from '../../../src/events/event-bus.js';
import type { VigilEvent } from '../../../src/protocol/events.schema.js';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { EventJournal } from '../../../src/subsystems/journal/event-journal.js';
import type { VigilDb } from '../../../src/subsystems/store/vigil-db.js';
import { DurableToolCaller } from '../../../src/subsystems/tools/durable-tool-caller.js';
import { ToolCallLog } from '../../../src/subsystems/tools/tool-call-log.js';
import type { RegisteredTool } from '../../../src/subsystems/tools/tool-registry.js';

const NOW = Date.parse('2026-03-01T08:00:00Z');
const echo: RegisteredTool = {
  name: 'mcp__s__echo',
  server: 's',
  tool: 'echo',
  description: 'Echoes.',
  inputSchema: { type: 'object' },
  requireApproval: false,
  idempotent: false,
  timeoutMs: 1000,
  available: true,
};

/** A caller on `db` whose hub records, at each call, what was on disk and on the bus. */
async function setUp() {
  const db = new MemoryLevel() as unknown as VigilDb;
  const clock = createSimulatedClock(NOW);
  const bus = new EventBus({ clock, currentBeat: () => 0 });
  const events: VigilEvent[] = [];
  bus.events$.subscribe((event) => events.push(event));
  const batches: Array<{ sync: boolean; keys: string[] }> = [];
  const failing = { nextUnsynced: false };
  const batch = db.batch.bind(db);
  db.batch = ((ops: Array<{ type: string; key: string }>, options?: { sync?: boolean }) => {
    if (failing.nextUnsynced && options?.sync !== true) {
      failing.nextUnsynced = false;
      return Promise.reject(new Error('disk full'));
    }
    batches.push({ sync: options?.sync === true, keys: ops.map((op) => op.key) });
    return batch(ops as never, options as never);
  }) as typeof db.batch;
  const log = await ToolCallLog.open(db);
  const seenAtCall: Array<{ batches: number; published: string[] }> = [];
  const hub = {
    list: () => [echo],
    get: (name: string) => (name === echo.name ? echo : undefined),
    callTool: (_name: string, args: unknown) => {
      seenAtCall.push({ batches: batches.length, published: events.map((e) => e.type) });
      return Promise.resolve({ content: [{ type: 'text' as const, text: JSON.stringify(args) }] });
    },
  };
  const caller = new DurableToolCaller({ hub, log, journal: new EventJournal(db), bus, clock, logger: silentLogger });
  return { caller, log, events, batches, seenAtCall, failing };
}

describe('a durable call', () => {
  it('is sent once its intent is synced, before tool.called is published; its result is written after it returns, in the next batch', async () => {
    const { caller, log, events, batches, seenAtCall } = await setUp();
    const signal = new AbortController().signal;
    const first = await caller.call({ name: echo.name, args: { n: 1 }, turnId: 't' }, signal);
    expect(first).toMatchObject({ isError: false, content: [{ type: 'text', text: '{"n":1}' }] });
    // The intent (record and tool.called entry) was synced before the server was asked; nobody had seen tool.called yet.
    expect(seenAtCall[0]).toEqual({ batches: 1, published: [] });
    expect(batches[0]!.sync).toBe(true);
    // tool.completed waits for its record: the journal writes what is published, and must never hold it first.
    expect(events.map((e) => e.type)).toEqual(['tool.called']);
    // The result was not waited for: the next call's intent carries it, in one synced batch.
    const second = await caller.call({ name: echo.name, args: { n: 2 }, turnId: 't' }, signal);
    expect(second.isError).toBe(false);
    expect(batches).toHaveLength(2);
    expect(batches[1]).toMatchObject({ sync: true });
    expect(batches[1]!.keys).toHaveLength(4);
    // Reads wait for the last result, which is still to be written when the call returns.
    const records = await log.all();
    expect(records.map((r) => [r.args, r.result?.text])).toEqual([
      [{ n: 1 }, '{"n":1}'],
      [{ n: 2 }, '{"n":2}'],
    ]);
    expect(batches).toHaveLength(3);
    expect(batches[2]).toMatchObject({ sync: false });
    expect(events.map((e) => e.type)).toEqual(['tool.called', 'tool.completed', 'tool.called', 'tool.completed']);
  });

  it('publishes tool.completed only once its record is written, or once that write has failed', async () => {
    const { caller, log, events, failing } = await setUp();
    const signal = new AbortController().signal;
    await caller.call({ name: echo.name, args: { n: 1 }, turnId: 't' }, signal);
    expect(events.map((e) => e.type)).toEqual(['tool.called']);
    await log.settled();
    expect(events.map((e) => e.type)).toEqual(['tool.called', 'tool.completed']);
    const [record] = await log.all();
    expect(record?.result?.ok).toBe(true);

    failing.nextUnsynced = true;
    const second = await caller.call({ name: echo.name, args: { n: 2 }, turnId: 't' }, signal);
    expect(second.isError).toBe(false);
    await log.settled();
    // The call did complete, and the feed says so; the log does not know its result, so a restart reports it
    // interrupted as well (its outcome unknown to the log: the safe side).
    expect(events.map((e) => e.type)).toEqual(['tool.called', 'tool.completed', 'tool.called', 'tool.completed']);
    const records = await log.all();
    expect(records[1]?.result).toBeUndefined();
  });
});
