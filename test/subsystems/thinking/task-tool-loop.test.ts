/** A sub-agent task's tool loop: the real SDK against the fake Messages API, the real stdio fixture server, the durable caller. */
import { taskOfferableTools } from '../../../src/subsystems/thinking/think-tools.js';
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
import { toolUseToAction } from '../../../src/subsystems/thinking/anthropic-tools.js';
import { AnthropicThinker } from '../../../src/subsystems/thinking/anthropic-thinker.js';
import { costMicroUsd, resolvePrice } from '../../../src/subsystems/thinking/pricing.js';
import type { TaskHooks } from '../../../src/subsystems/thinking/thinker.js';
import { DurableToolCaller } from '../../../src/subsystems/tools/durable-tool-caller.js';
import { ToolCallLog } from '../../../src/subsystems/tools/tool-call-log.js';
import { message, startFakeMessagesApi, text, toolUse, type FakeMessagesApi } from '../../fixtures/fake-messages-api.js';
import { stdioFixture, useHubs } from '../tools/mcp-hub.fixture.js';

const MODEL = 'claude-sonnet-4-6';
const PRICE = resolvePrice(MODEL);
const NOW = Date.parse('2026-03-01T08:00:00Z');
const live = () => new AbortController().signal;

const hubs = useHubs();
let api: FakeMessagesApi;
let dir: string;
let db: VigilDb;
beforeEach(async () => {
  api = await startFakeMessagesApi();
  dir = mkdtempSync(join(tmpdir(), 'vigil-task-loop-'));
  db = new MemoryLevel() as unknown as VigilDb;
});
afterEach(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

async function rig() {
  const countFile = join(dir, 'count');
  const hub = hubs({ fixture: stdioFixture({ FIXTURE_COUNT_FILE: countFile }, { requireApproval: ['crash'] }) });
  await hub.next('mcp.server_up');
  const clock = createSimulatedClock(NOW);
  const bus = new EventBus({ clock, currentBeat: () => 0 });
  const events: VigilEvent[] = [];
  bus.events$.subscribe((event) => events.push(event));
  const log = await ToolCallLog.open(db);
  const caller = new DurableToolCaller({ hub: hub.hub, log, journal: new EventJournal(db), bus, clock, logger: silentLogger });
  const thinker = new AnthropicThinker({ apiKey: 'sk-test', baseURL: api.url, model: MODEL, price: PRICE, maxToolIterations: 4, maxRetries: 0, timeoutMs: 5000 });
  thinker.useTools(caller);
  const charged: number[] = [];
  const hooks: TaskHooks = { onModelCall: async (cost) => void charged.push(cost.costMicroUsd) };
  return { caller, log, thinker, events, countFile, charged, hooks };
}

const calls = (file: string) => {
  try {
    return Number(readFileSync(file, 'utf8'));
  } catch {
    return 0;
  }
};

const task = (tools?: string[], maxCostMicroUsd = 500_000) => ({
  taskId: 'task-1',
  turnId: 't-1',
  prompt: 'Tally hello, then say what it returned.',
  identity: 'You are a test agent.',
  ...(tools === undefined ? {} : { tools }),
  maxCostMicroUsd,
});

describe('a task that acts (Anthropic)', () => {
  it('runs its tool loop through the durable caller: only its own tools offered, taskId on tool.called and the record, each call charged', async () => {
    const r = await rig();
    api.enqueue(
      message([toolUse('mcp__fixture__tally', { text: 'hello' }, 'toolu_1')], { input_tokens: 1000, output_tokens: 100 }),
      message([text('The tally returned hello.')], { input_tokens: 1200, output_tokens: 50 }),
    );
    const output = await r.thinker.runTask(task(['mcp__fixture__tally', 'mcp__fixture__echo']), live(), r.hooks);
    expect(output.text).toBe('The tally returned hello.');
    expect(calls(r.countFile)).toBe(1);

    // The task's tools only, sorted, the cache breakpoint on the last; the same bytes on every call.
    const tools = api.requests[0]!.body.tools as Array<{ name: string; cache_control?: unknown }>;
    expect(tools.map((t) => t.name)).toEqual(['mcp__fixture__echo', 'mcp__fixture__tally']);
    expect(tools.map((t) => t.cache_control)).toEqual([undefined, { type: 'ephemeral' }]);
    expect(new Set(api.requests.map((req) => JSON.stringify([req.body.system, req.body.tools]))).size).toBe(1);
    expect(JSON.stringify(api.requests[0]!.body.system)).toContain('and the tools you see to act with');
    expect(api.requests[1]!.body.messages.at(-1).content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'hello' }] }]);

    expect(r.events[0]).toMatchObject({ type: 'tool.called', turnId: 't-1', taskId: 'task-1', name: 'mcp__fixture__tally' });
    const [record] = await r.log.all();
    expect(record).toMatchObject({ taskId: 'task-1', turnId: 't-1', result: { ok: true } });

    const expected = [
      costMicroUsd({ inputTokens: 1000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 }, PRICE),
      costMicroUsd({ inputTokens: 1200, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0 }, PRICE),
    ];
    expect(r.charged).toEqual(expected);
    expect(output.costMicroUsd).toBe(expected[0]! + expected[1]!);
    expect(output.usage).toEqual({ inputTokens: 2200, outputTokens: 150, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('answers a call to a tool outside its list with an error result, never calling it', async () => {
    const r = await rig();
    api.enqueue(message([toolUse('mcp__fixture__tally', { text: 'x' }, 'toolu_x')]), message([text('I could not.')]));
    const output = await r.thinker.runTask(task(['mcp__fixture__echo']), live(), r.hooks);
    expect(output.text).toBe('I could not.');
    expect(calls(r.countFile)).toBe(0);
    expect(r.events).toEqual([]);
    expect(api.requests[1]!.body.messages.at(-1).content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_x', is_error: true, content: "mcp__fixture__tally is not one of this task's tools (mcp__fixture__echo): it was not called." },
    ]);
  });

  it('stops at its money cap after the model call that reaches it, with what it has, saying so', async () => {
    const r = await rig();
    const perCall = costMicroUsd({ inputTokens: 2000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, PRICE);
    api.enqueue(
      message([text('Step one.'), toolUse('mcp__fixture__tally', { text: 'one' })], { input_tokens: 2000 }),
      message([text('Step two.'), toolUse('mcp__fixture__tally', { text: 'two' })], { input_tokens: 2000 }),
      message([text('never asked for')]),
    );
    const output = await r.thinker.runTask(task(['mcp__fixture__tally'], perCall + 1), live(), r.hooks);
    expect(api.requests).toHaveLength(2);
    expect(calls(r.countFile)).toBe(1);
    expect(r.charged).toEqual([perCall, perCall]);
    expect(output.costMicroUsd).toBe(2 * perCall);
    expect(output.text).toMatch(/^Step two\.\n\n\[The task stopped at its cost cap of \$0\.0060 after spending \$0\.0120 in 2 model calls; this is what it had\.\]$/);
  });

  it('without tools makes one call with the tool-less sub-agent instructions and no tools', async () => {
    const r = await rig();
    api.enqueue(message([text('Findings.')], { input_tokens: 10 }));
    const output = await r.thinker.runTask(task(), live(), r.hooks);
    expect(output.text).toBe('Findings.');
    expect(api.requests[0]!.body.tools).toBeUndefined();
    expect(JSON.stringify(api.requests[0]!.body.system)).toContain('You have no tools');
    expect(r.charged).toHaveLength(1);
  });

  it('aborts its tool call in flight when its signal aborts (a deadline, a cancel), rejecting with what was spent', async () => {
    const r = await rig();
    api.enqueue(message([toolUse('mcp__fixture__hang', {})], { input_tokens: 1000 }));
    const controller = new AbortController();
    const running = r.thinker.runTask(task(['mcp__fixture__hang']), controller.signal, r.hooks);
    await new Promise<void>((resolve) => {
      const check = () => (calls(r.countFile) === 1 ? resolve() : setTimeout(check, 5));
      check();
    });
    controller.abort(new Error('deadline'));
    await expect(running).rejects.toMatchObject({ code: 'THINK_ABORTED', data: { partial: { costMicroUsd: r.charged[0] } } });
    expect(r.events.map((e) => e.type)).toEqual(['tool.called', 'tool.completed']);
    expect(r.events[1]).toMatchObject({ ok: false });
  });
});

describe('the spawn_task tool', () => {
  const ctx = { turnIds: ['t-1'], goalIds: [], taskTools: ['mcp__fixture__echo', 'mcp__fixture__tally'] };

  it('turns tools, a deadline and a money cap into the action', () => {
    expect(toolUseToAction('spawn_task', { prompt: 'Go.', tools: ['mcp__fixture__tally', 'mcp__fixture__echo'], deadlineSeconds: 30, maxCostUsd: 0.25 }, ctx)).toEqual({
      ok: true,
      action: { type: 'spawn_task', prompt: 'Go.', tools: ['mcp__fixture__echo', 'mcp__fixture__tally'], deadlineMs: 30_000, maxCostMicroUsd: 250_000 },
    });
    expect(toolUseToAction('spawn_task', { prompt: 'Go.' }, ctx)).toEqual({ ok: true, action: { type: 'spawn_task', prompt: 'Go.' } });
  });

  it('refuses a tool that is not offered to tasks (unknown, or needing approval), naming those that are', () => {
    const outcome = toolUseToAction('spawn_task', { prompt: 'Go.', tools: ['mcp__fixture__crash'] }, ctx);
    expect(outcome).toEqual({
      ok: false,
      error: 'Invalid input for spawn_task: tools "mcp__fixture__crash" cannot be given to a task; use some of: "mcp__fixture__echo", "mcp__fixture__tally".',
    });
    expect(toolUseToAction('spawn_task', { prompt: 'Go.', deadlineSeconds: 0 }, ctx)).toMatchObject({ ok: false });
  });

  it('is offered the runtime’s tools that need no approval: a think’s context lists them', async () => {
    const r = await rig();
    expect(r.caller.definitions().map((t) => t.name)).toContain('mcp__fixture__crash');
    expect(taskOfferableTools(r.caller.definitions()).map((t) => t.name)).not.toContain('mcp__fixture__crash');
  });
});
