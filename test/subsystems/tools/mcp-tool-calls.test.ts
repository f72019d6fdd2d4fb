/** The model calls MCP tools: the real SDK against the fake Messages API, a real stdio fixture server, the durable log on a memory db. */
import { getEventListeners } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { TOOL_RESULT_TEXT_CAP_BYTES } from '../../../src/subsystems/tools/tool-output.js';
import {
  message,
  startFakeMessagesApi,
  text,
  toolUse,
  type FakeMessagesApi,
} from '../../fixtures/fake-messages-api.js';
import { stdioFixture, useHubs, type HubHarness } from './mcp-hub.fixture.js';
import { userMessageInput } from '../../fixtures/think-input.fixture.js';

const MODEL = 'claude-sonnet-4-6';
const NOW = Date.parse('2026-03-01T08:00:00Z');
const input = userMessageInput('Use the tool.', NOW);
const live = () => new AbortController().signal;

const hubs = useHubs();
let api: FakeMessagesApi;
let dir: string;
let db: VigilDb;
beforeEach(async () => {
  api = await startFakeMessagesApi();
  dir = mkdtempSync(join(tmpdir(), 'vigil-tool-calls-'));
  db = new MemoryLevel();
});
afterEach(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Rig {
  hub: HubHarness;
  caller: DurableToolCaller;
  log: ToolCallLog;
  thinker: AnthropicThinker;
  events: VigilEvent[];
  countFile: string;
}

/** A hub with the stdio fixture (its calls counted in a file), connected, and a thinker using it through the durable caller. */
async function rig(): Promise<Rig> {
  const countFile = join(dir, 'count');
  const hub = hubs({ fixture: stdioFixture({ FIXTURE_COUNT_FILE: countFile }) });
  await hub.next('mcp.server_up');
  const clock = createSimulatedClock(NOW);
  const bus = new EventBus({ clock, currentBeat: () => 0 });
  const events: VigilEvent[] = [];
  bus.events$.subscribe((event) => events.push(event));
  const log = await ToolCallLog.open(db);
  const caller = new DurableToolCaller({
    hub: hub.hub,
    log,
    journal: new EventJournal(db),
    bus,
    clock,
    logger: silentLogger,
  });
  const thinker = new AnthropicThinker({
    apiKey: 'sk-test',
    baseURL: api.url,
    model: MODEL,
    price: resolvePrice(MODEL),
    maxToolIterations: 4,
    maxRetries: 0,
    timeoutMs: 5000,
  });
  thinker.useTools(caller);
  return { hub, caller, log, thinker, events, countFile };
}

const calls = (file: string) => {
  try {
    return Number(readFileSync(file, 'utf8'));
  } catch {
    return 0;
  }
};
/** The tool_result blocks of a request's last user message. */
const toolResults = (index: number) =>
  (api.requests[index]!.body.messages.at(-1).content as any[]).filter((b) => b.type === 'tool_result');

describe('MCP tools in the think tool loop', () => {
  it('offers the tools after Vigil’s own, in a stable order, the cache breakpoint on the last; runs a call and gives the result back', async () => {
    const r = await rig();
    api.enqueue(
      message([toolUse('mcp__fixture__tally', { text: 'hi there' }, 'toolu_1')]),
      message([toolUse('reply', { turnId: 't-1', text: 'The tool said hi there.' })]),
      message([text('done')]),
    );
    const result = await r.thinker.think(input, live());
    expect(result.actions).toEqual([{ type: 'reply', turnId: 't-1', text: 'The tool said hi there.' }]);
    expect(calls(r.countFile)).toBe(1);
    expect(toolResults(1)).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'hi there' }] },
    ]);

    const tools = api.requests[0]!.body.tools as Array<{ name: string; cache_control?: unknown; input_schema: any }>;
    const names = tools.map((t) => t.name);
    const own = [
      'reply',
      'remember',
      'feel',
      'goal_add',
      'goal_progress',
      'goal_complete',
      'spawn_task',
      'recall',
      'schedule_add',
      'schedule_list',
      'schedule_remove',
    ];
    expect(names.slice(0, own.length)).toEqual(own);
    expect(names.slice(own.length)).toEqual([...names.slice(own.length)].sort());
    expect(names).toContain('mcp__fixture__tally');
    expect(tools.filter((t) => t.cache_control !== undefined).map((t) => t.name)).toEqual([names.at(-1)]);
    expect(tools.find((t) => t.name === 'mcp__fixture__tally')!.input_schema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
    });
    // Every request of the think, and of the next think, sends the same tool bytes: the cached prefix holds.
    api.enqueue(message([text('nothing to do')]));
    await r.thinker.think(input, live());
    const toolBytes = api.requests.map((req) => JSON.stringify(req.body.tools));
    expect(new Set(toolBytes).size).toBe(1);

    // The durable record: intent and result, with their events.
    const [record] = await r.log.all();
    expect(record).toMatchObject({
      turnId: 't-1',
      name: 'mcp__fixture__tally',
      args: { text: 'hi there' },
      result: { ok: true, text: 'hi there' },
    });
    expect(r.events.map((e) => e.type)).toEqual(['tool.called', 'tool.completed']);
    expect(r.events[0]).toMatchObject({
      callId: record!.callId,
      turnId: 't-1',
      name: 'mcp__fixture__tally',
      argsBytes: 19,
    });
    expect(r.events[1]).toMatchObject({ callId: record!.callId, ok: true, resultBytes: record!.result!.resultBytes });
    const journal = new EventJournal(db);
    expect((await journal.query()).map((e) => e.type)).toEqual(['tool.called', 'tool.completed']);
  });

  it('traces an MCP call under the durable callId its tool.called event has, with its duration, outcome and result size', async () => {
    const r = await rig();
    api.enqueue(message([toolUse('mcp__fixture__tally', { text: 'hi there' }, 'toolu_1')]), message([text('done')]));
    const result = await r.thinker.think(input, live());
    const [record] = await r.log.all();
    const completed = r.events.find((e) => e.type === 'tool.completed') as Extract<
      VigilEvent,
      { type: 'tool.completed' }
    >;
    expect(result.trace!.toolCalls).toEqual([
      {
        callId: record!.callId,
        name: 'mcp__fixture__tally',
        startedAt: expect.any(Number),
        durationMs: expect.any(Number),
        ok: true,
        resultBytes: completed.resultBytes,
      },
    ]);
    expect(result.trace!.toolCalls[0]!.durationMs).toBeGreaterThanOrEqual(completed.durationMs);
    expect(result.trace!.sections.find((s) => s.name === 'tools')!.text).toContain('mcp__fixture__tally');
  });

  it('sends arguments that fail the schema back as an error result; the server is never called', async () => {
    const r = await rig();
    api.enqueue(message([toolUse('mcp__fixture__tally', { text: 42 }, 'toolu_bad')]), message([text('sorry')]));
    await r.thinker.think(input, live());
    expect(calls(r.countFile)).toBe(0);
    const [result] = toolResults(1);
    expect(result).toMatchObject({ tool_use_id: 'toolu_bad', is_error: true });
    expect(result.content[0].text).toMatch(/do not match its input schema/);
    expect(r.events.find((e) => e.type === 'tool.completed')).toMatchObject({ ok: false });
  });

  it('cuts a result over the cap and says how much was cut', async () => {
    const r = await rig();
    const big = 'x'.repeat(TOOL_RESULT_TEXT_CAP_BYTES + 5000);
    api.enqueue(message([toolUse('mcp__fixture__echo', { text: big }, 'toolu_big')]), message([text('ok')]));
    // Room for a 21 KB call and its 16 KB result in the next request (the default bound would end the loop first).
    await r.thinker.think({ ...input, contextTokens: 64_000 }, live());
    const [result] = toolResults(1);
    expect(result.is_error).toBeUndefined();
    expect(result.content[0].text).toHaveLength(TOOL_RESULT_TEXT_CAP_BYTES);
    expect(result.content[1].text).toBe(
      `[truncated: the tool returned ${big.length} bytes of text; the last 5000 bytes were cut]`,
    );
  });

  it('changes the tool list once when a server comes up, not when it goes down', async () => {
    const r = await rig();
    const empty = new DurableToolCaller({
      hub: { list: () => [], get: () => undefined, callTool: () => Promise.reject(new Error('none')) },
      log: r.log,
      journal: new EventJournal(db),
      bus: new EventBus({ clock: createSimulatedClock(NOW), currentBeat: () => 0 }),
      clock: createSimulatedClock(NOW),
      logger: silentLogger,
    });
    expect(empty.definitions()).toEqual([]);
    const before = r.caller.definitions();
    expect(before.map((t) => t.name)).toContain('mcp__fixture__hang');
    expect(r.caller.definitions()).toBe(before);
    await r.hub.hub.connection('fixture')!.stop();
    // Down: the tools keep their place (and the prompt cache); a call says the server is not connected.
    expect(r.caller.definitions()).toBe(before);
    const failed = await r.caller.call({ name: 'mcp__fixture__tally', args: { text: 'a' }, turnId: 't-1' }, live());
    expect(failed.isError).toBe(true);
    expect(failed.content[0]).toMatchObject({ text: expect.stringMatching(/unavailable/) });
  });
});

describe('tools that need approval', () => {
  it('are offered in the same stable order; a call waits (its pending intent synced with tool.approval_requested), runs once approved, and its turn is held until told', async () => {
    const countFile = join(dir, 'count');
    const hub = hubs({ fixture: stdioFixture({ FIXTURE_COUNT_FILE: countFile }, { requireApproval: ['tally'] }) });
    await hub.next('mcp.server_up');
    const clock = createSimulatedClock(NOW);
    const bus = new EventBus({ clock, currentBeat: () => 0 });
    const events: VigilEvent[] = [];
    bus.events$.subscribe((event) => events.push(event));
    const journal = new EventJournal(db);
    const log = await ToolCallLog.open(db);
    const caller = new DurableToolCaller({ hub: hub.hub, log, journal, bus, clock, logger: silentLogger });
    const names = caller.definitions().map((t) => t.name);
    expect(names).toEqual([...names].sort());
    expect(names).toContain('mcp__fixture__tally');

    const waiting = await caller.call({ name: 'mcp__fixture__tally', args: { text: 'a' }, turnId: 't-1' }, live());
    expect(waiting).toMatchObject({
      isError: false,
      pendingApproval: expect.stringMatching(/^call-/),
      content: [{ text: expect.stringMatching(/needs an operator's approval and was not run/) }],
    });
    const callId = waiting.pendingApproval!;
    expect(calls(countFile)).toBe(0);
    expect(events.map((e) => e.type)).toEqual(['tool.approval_requested']);
    // The record and its event were written in one synced batch: both are on disk already.
    expect(await log.get(callId)).toMatchObject({ callId, turnId: 't-1', approval: { state: 'pending' } });
    expect(await journal.query({ types: ['tool.approval_requested'] })).toEqual([
      expect.objectContaining({ callId, args: { text: 'a' } }),
    ]);
    expect([...caller.waitingTurnIds()]).toEqual(['t-1']);
    expect(caller.waitingTurnIds()).toBe(caller.waitingTurnIds());

    const { decision, ran } = await caller.approve(callId);
    expect(decision).toMatchObject({ callId, approved: true, decidedAt: NOW });
    expect([...caller.waitingTurnIds()]).toEqual(['t-1']);
    await ran;
    expect(calls(countFile)).toBe(1);
    expect(caller.waitingTurnIds().size).toBe(0);
    expect([...caller.heldTurnIds()]).toEqual(['t-1']);
    expect(caller.notices(['t-2']).map((n) => n.callId)).toEqual([]);
    const [notice] = caller.notices(['t-1']);
    expect(notice).toMatchObject({
      callId,
      turnId: 't-1',
      line: expect.stringMatching(/approved by the operator and returned:\na$/),
    });
    caller.acknowledge([callId]);
    expect(caller.heldTurnIds().size).toBe(0);
    await expect
      .poll(async () => (await log.get(callId))?.approval)
      .toMatchObject({ state: 'approved', delivered: true });
    expect(events.map((e) => e.type)).toEqual([
      'tool.approval_requested',
      'tool.approval_decided',
      'tool.called',
      'tool.completed',
    ]);
  });

  it('a decision whose turn has ended is told to the next think of any turn', async () => {
    const hub = hubs({ fixture: stdioFixture({}, { requireApproval: true }) });
    await hub.next('mcp.server_up');
    const clock = createSimulatedClock(NOW);
    const bus = new EventBus({ clock, currentBeat: () => 0 });
    const open = new Set(['t-1']);
    const caller = new DurableToolCaller({
      hub: hub.hub,
      log: await ToolCallLog.open(db),
      journal: new EventJournal(db),
      bus,
      clock,
      logger: silentLogger,
      isTurnOpen: (id) => open.has(id),
    });
    const { pendingApproval } = await caller.call(
      { name: 'mcp__fixture__echo', args: { text: 'x' }, turnId: 't-1' },
      live(),
    );
    await caller.deny(pendingApproval!);
    expect(caller.notices(['t-9'])).toEqual([]);
    open.delete('t-1');
    expect(caller.notices(['t-9'])).toEqual([
      expect.objectContaining({
        callId: pendingApproval,
        line: expect.stringMatching(/denied by the operator \(no reason was given\)/),
      }),
    ]);
  });

  it('many calls under one think’s signal leave no listener on it', async () => {
    const r = await rig();
    const signal = live();
    for (let i = 0; i < 12; i++)
      expect(
        (await r.caller.call({ name: 'mcp__fixture__echo', args: { text: `${i}` }, turnId: 't-1' }, signal)).isError,
      ).toBe(false);
    expect(getEventListeners(signal, 'abort')).toEqual([]);
  });
});
