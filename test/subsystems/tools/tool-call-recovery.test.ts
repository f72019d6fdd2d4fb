/** What boot does with calls a crash left unknown, and how the Anthropic thinker's next think is told (real SDK, fake Messages API). */
import { MemoryLevel } from 'memory-level';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventBus } from '../../../src/events/event-bus.js';
import type { VigilEvent } from '../../../src/protocol/events.schema.js';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { EventJournal } from '../../../src/subsystems/journal/event-journal.js';
import type { VigilDb } from '../../../src/subsystems/store/vigil-db.js';
import { AnthropicThinker } from '../../../src/subsystems/thinking/anthropic-thinker.js';
import { resolvePrice } from '../../../src/subsystems/thinking/pricing.js';
import { DurableToolCaller } from '../../../src/subsystems/tools/durable-tool-caller.js';
import { ToolCallLog } from '../../../src/subsystems/tools/tool-call-log.js';
import {
  firstUserText,
  message,
  startFakeMessagesApi,
  text,
  type FakeMessagesApi,
} from '../../fixtures/fake-messages-api.js';
import { userMessageInput } from '../../fixtures/think-input.fixture.js';

const NOW = Date.parse('2026-03-01T08:00:00Z');
const noHub = {
  list: () => [],
  get: () => undefined,
  callTool: () => Promise.reject(new Error('no server in this test')),
};

let api: FakeMessagesApi;
beforeEach(async () => {
  api = await startFakeMessagesApi();
});
afterEach(async () => {
  await api.close();
});

/** A caller booted on `db`, with the events it emitted. */
async function boot(db: VigilDb): Promise<{ caller: DurableToolCaller; events: VigilEvent[] }> {
  const clock = createSimulatedClock(NOW);
  const bus = new EventBus({ clock, currentBeat: () => 0 });
  const events: VigilEvent[] = [];
  bus.events$.subscribe((event) => events.push(event));
  const caller = new DurableToolCaller({
    hub: noHub,
    log: await ToolCallLog.open(db),
    journal: new EventJournal(db),
    bus,
    clock,
    logger: silentLogger,
  });
  await caller.recover();
  return { caller, events };
}

describe('calls a crash left unknown', () => {
  it('are reported once each, told to their own turn, and say whether the tool may be called again', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const log = await ToolCallLog.open(db);
    await log.intent(
      { callId: 'c1', turnId: 't-1', name: 'mcp__s__write', args: { a: 1 }, at: NOW, idempotent: false },
      [],
    );
    await log.intent({ callId: 'c2', turnId: 't-2', name: 'mcp__s__read', args: {}, at: NOW, idempotent: true }, []);
    await log.intent({ callId: 'c3', turnId: 't-1', name: 'mcp__s__read', args: {}, at: NOW, idempotent: true }, []);
    await log.result(
      { callId: 'c3', turnId: 't-1', name: 'mcp__s__read', args: {}, at: NOW, idempotent: true },
      { ok: true, durationMs: 1, resultBytes: 1, text: 'x' },
      [],
    );

    const first = await boot(db);
    expect(first.events.map((e) => e.type === 'tool.interrupted' && [e.callId, e.name])).toEqual([
      ['c1', 'mcp__s__write'],
      ['c2', 'mcp__s__read'],
    ]);
    const [write] = first.caller.notices(['t-1']);
    expect(first.caller.notices(['t-1'])).toHaveLength(1);
    expect(write!.line).toMatch(
      /^Tool call c1 \(mcp__s__write with arguments \{"a":1\}\) was interrupted by a restart: its outcome is unknown\. It was not run again/,
    );
    expect(first.caller.notices(['t-2'])[0]!.line).toMatch(/It is idempotent: you may call it again/);
    first.caller.acknowledge(['c1']);
    expect(first.caller.notices(['t-1'])).toEqual([]);
    // In the journal with the reported mark, so a second boot says nothing.
    expect((await new EventJournal(db).query()).map((e) => e.type)).toEqual(['tool.interrupted', 'tool.interrupted']);
    expect((await boot(db)).events).toEqual([]);
  });

  it('are told to the model in the next think of the turn, then not again', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    await (
      await ToolCallLog.open(db)
    ).intent({ callId: 'c1', turnId: 't-1', name: 'mcp__s__write', args: {}, at: NOW, idempotent: false }, []);
    const { caller } = await boot(db);
    const thinker = new AnthropicThinker({
      apiKey: 'sk-test',
      baseURL: api.url,
      model: 'claude-sonnet-4-6',
      price: resolvePrice('claude-sonnet-4-6'),
      maxToolIterations: 2,
      maxRetries: 0,
      timeoutMs: 5000,
    });
    thinker.useTools(caller);
    const input = userMessageInput('Write it.', NOW);
    api.enqueue(message([text('I will check first.')]), message([text('again')]));
    await thinker.think(input, new AbortController().signal);
    await thinker.think(input, new AbortController().signal);
    const stateOf = (i: number) => firstUserText(api.requests[i]!);
    expect(stateOf(0)).toContain(
      '<notices>\n- Tool call c1 (mcp__s__write with arguments {}) was interrupted by a restart: its outcome is unknown.',
    );
    expect(stateOf(1)).not.toContain('Tool call c1');
  });
});
