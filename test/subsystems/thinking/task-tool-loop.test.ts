/** A sub-agent task's tool loop: the real SDK against the fake Messages API, the real stdio fixture server, the durable caller. */
import { taskOfferableTools } from '../../../src/subsystems/thinking/think-tools.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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
import {
  message,
  startFakeMessagesApi,
  text,
  tokenUsageOf,
  toolUse,
  type FakeMessagesApi,
  type RecordedRequest,
} from '../../fixtures/fake-messages-api.js';
import { userMessageInput } from '../../fixtures/think-input.fixture.js';
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
  db = new MemoryLevel();
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
    price: PRICE,
    maxToolIterations: 4,
    maxRetries: 0,
    timeoutMs: 5000,
  });
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

/** One think with the task's identity: it caches the prefix (tools, system) a task then reads. */
async function warmThink(r: Awaited<ReturnType<typeof rig>>): Promise<RecordedRequest> {
  api.enqueue(message([text('Noted.')]));
  await r.thinker.think({ ...userMessageInput('Hello?', NOW), identity: IDENTITY }, live());
  expect(api.requests).toHaveLength(1);
  return api.requests[0]!;
}

const IDENTITY = 'You are a test agent.';
const task = (tools?: string[], maxCostMicroUsd = 500_000) => ({
  taskId: 'task-1',
  turnId: 't-1',
  prompt: 'Tally hello, then say what it returned.',
  identity: IDENTITY,
  ...(tools === undefined ? {} : { tools }),
  maxCostMicroUsd,
});

describe('a task that acts (Anthropic)', () => {
  it("runs its tool loop through the durable caller with the think's cached prefix and its own tools named, taskId on tool.called and the record, each call charged what the API reported", async () => {
    const r = await rig();
    const think = await warmThink(r);
    api.enqueue(
      message([toolUse('mcp__fixture__tally', { text: 'hello' }, 'toolu_1')]),
      message([text('The tally returned hello.')]),
    );
    const output = await r.thinker.runTask(task(['mcp__fixture__tally', 'mcp__fixture__echo']), live(), r.hooks);
    expect(output.text).toBe('The tally returned hello.');
    expect(calls(r.countFile)).toBe(1);

    // The think's whole tool list and system blocks, byte for byte, then the sub-agent instruction (uncached); the same on every call.
    const sent = api.requests.slice(1);
    expect(sent).toHaveLength(2);
    const tools = sent[0]!.body.tools as Array<{ name: string }>;
    expect(tools).toEqual(think.body.tools);
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['reply', 'mcp__fixture__echo', 'mcp__fixture__tally', 'mcp__fixture__crash']),
    );
    expect(sent[0]!.body.system.slice(0, -1)).toEqual(think.body.system);
    expect(sent[0]!.body.system.at(-1)).toEqual({
      type: 'text',
      text: expect.stringContaining('may call only those the task names under <your_tools>'),
    });
    expect(sent[0]!.body.tool_choice).toBeUndefined();
    expect(new Set(sent.map((req) => JSON.stringify([req.body.system, req.body.tools]))).size).toBe(1);
    // Its own tools, those it may call, are named in its message.
    expect(sent[0]!.body.messages[0]).toEqual({
      role: 'user',
      content:
        '<task>\nTally hello, then say what it returned.\n</task>\n\n<your_tools>\nmcp__fixture__echo\nmcp__fixture__tally\n</your_tools>',
    });
    expect(sent[1]!.body.messages.at(-1).content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'hello' }] },
    ]);
    // Each call reads the prefix the think cached.
    expect(think.usage!.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(sent.map((req) => req.usage!.cache_read_input_tokens)).toEqual([
      think.usage!.cache_creation_input_tokens,
      think.usage!.cache_creation_input_tokens,
    ]);

    expect(r.events[0]).toMatchObject({
      type: 'tool.called',
      turnId: 't-1',
      taskId: 'task-1',
      name: 'mcp__fixture__tally',
    });
    const [record] = await r.log.all();
    expect(record).toMatchObject({ taskId: 'task-1', turnId: 't-1', result: { ok: true } });

    const reported = sent.map((req) => tokenUsageOf(req.usage!));
    const expected = reported.map((usage) => costMicroUsd(usage, PRICE));
    expect(r.charged).toEqual(expected);
    expect(output.costMicroUsd).toBe(expected[0]! + expected[1]!);
    expect(output.usage).toEqual({
      inputTokens: reported[0]!.inputTokens + reported[1]!.inputTokens,
      outputTokens: reported[0]!.outputTokens + reported[1]!.outputTokens,
      cacheReadTokens: reported[0]!.cacheReadTokens + reported[1]!.cacheReadTokens,
      cacheWriteTokens: 0,
    });
    expect(reported.map((usage) => usage.cacheWriteTokens)).toEqual([0, 0]);
  });

  it('answers a call to a tool outside its list with an error result, never calling it', async () => {
    const r = await rig();
    api.enqueue(message([toolUse('mcp__fixture__tally', { text: 'x' }, 'toolu_x')]), message([text('I could not.')]));
    const output = await r.thinker.runTask(task(['mcp__fixture__echo']), live(), r.hooks);
    expect(output.text).toBe('I could not.');
    expect(calls(r.countFile)).toBe(0);
    expect(r.events).toEqual([]);
    expect(api.requests[1]!.body.messages.at(-1).content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_x',
        is_error: true,
        content: "mcp__fixture__tally is not one of this task's tools (mcp__fixture__echo): it was not called.",
      },
    ]);
  });

  it('never calls a tool given to it that now needs approval: it is not named, and a call to it comes back as an error', async () => {
    const r = await rig();
    api.enqueue(message([toolUse('mcp__fixture__crash', {}, 'toolu_c')]), message([text('I could not.')]));
    const output = await r.thinker.runTask(task(['mcp__fixture__crash']), live(), r.hooks);
    expect(output.text).toBe('I could not.');
    expect(api.requests[0]!.body.tool_choice).toEqual({ type: 'none' });
    expect(api.requests[0]!.body.messages[0].content).toBe('<task>\nTally hello, then say what it returned.\n</task>');
    expect(api.requests[1]!.body.messages.at(-1).content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_c',
        is_error: true,
        content: "mcp__fixture__crash is not one of this task's tools ((none)): it was not called.",
      },
    ]);
    expect(r.events).toEqual([]);
    expect(await r.log.all()).toEqual([]);
  });

  it('stops at its money cap after the model call that reaches it, with what it has, saying so', async () => {
    const r = await rig();
    const think = await warmThink(r);
    // Uncached input and output scripted; the cache read is the fake's own: the prefix the think cached.
    const perCall = costMicroUsd(
      {
        inputTokens: 2000,
        outputTokens: 0,
        cacheReadTokens: think.usage!.cache_creation_input_tokens,
        cacheWriteTokens: 0,
      },
      PRICE,
    );
    api.enqueue(
      message([text('Step one.'), toolUse('mcp__fixture__tally', { text: 'one' })], {
        input_tokens: 2000,
        output_tokens: 0,
      }),
      message([text('Step two.'), toolUse('mcp__fixture__tally', { text: 'two' })], {
        input_tokens: 2000,
        output_tokens: 0,
      }),
      message([text('never asked for')]),
    );
    const output = await r.thinker.runTask(task(['mcp__fixture__tally'], perCall + 1), live(), r.hooks);
    const sent = api.requests.slice(1);
    expect(sent).toHaveLength(2);
    expect(calls(r.countFile)).toBe(1);
    expect(sent.map((req) => costMicroUsd(tokenUsageOf(req.usage!), PRICE))).toEqual([perCall, perCall]);
    expect(r.charged).toEqual([perCall, perCall]);
    expect(output.costMicroUsd).toBe(2 * perCall);
    const usd = (micro: number) => `$${(micro / 1_000_000).toFixed(4)}`;
    expect(output.text).toBe(
      `Step two.\n\n[The task stopped at its cost cap of ${usd(perCall + 1)} after spending ${usd(2 * perCall)} in 2 model calls; this is what it had.]`,
    );
  });

  it("without tools makes one call with the think's prefix, the tool-less sub-agent instructions, tool_choice none and no tools named", async () => {
    const r = await rig();
    const think = await warmThink(r);
    api.enqueue(message([text('Findings.')]));
    const output = await r.thinker.runTask(task(), live(), r.hooks);
    expect(output.text).toBe('Findings.');
    const [sent, ...more] = api.requests.slice(1);
    expect(more).toEqual([]);
    expect(sent!.body.tools).toEqual(think.body.tools);
    expect(sent!.body.tool_choice).toEqual({ type: 'none' });
    expect(sent!.body.system.slice(0, -1)).toEqual(think.body.system);
    expect(sent!.body.system.at(-1)).toEqual({
      type: 'text',
      text: expect.stringContaining('its tools are listed but\nyou cannot call them'),
    });
    expect(sent!.body.messages).toEqual([
      { role: 'user', content: '<task>\nTally hello, then say what it returned.\n</task>' },
    ]);
    expect(sent!.usage!.cache_read_input_tokens).toBe(think.usage!.cache_creation_input_tokens);
    expect(r.charged).toEqual([costMicroUsd(tokenUsageOf(sent!.usage!), PRICE)]);
    expect(output.costMicroUsd).toBe(r.charged[0]);
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
    await expect(running).rejects.toMatchObject({
      code: 'THINK_ABORTED',
      data: { partial: { costMicroUsd: r.charged[0] } },
    });
    // tool.completed follows its record's write, which the aborted call does not wait for.
    await vi.waitFor(() => expect(r.events.map((e) => e.type)).toEqual(['tool.called', 'tool.completed']));
    expect(r.events[1]).toMatchObject({ ok: false });
  });
});

describe('the spawn_task tool', () => {
  const ctx = { turnIds: ['t-1'], goalIds: [], taskTools: ['mcp__fixture__echo', 'mcp__fixture__tally'] };

  it('turns tools, a deadline and a money cap into the action', () => {
    expect(
      toolUseToAction(
        'spawn_task',
        { prompt: 'Go.', tools: ['mcp__fixture__tally', 'mcp__fixture__echo'], deadlineSeconds: 30, maxCostUsd: 0.25 },
        ctx,
      ),
    ).toEqual({
      ok: true,
      action: {
        type: 'spawn_task',
        prompt: 'Go.',
        tools: ['mcp__fixture__echo', 'mcp__fixture__tally'],
        deadlineMs: 30_000,
        maxCostMicroUsd: 250_000,
      },
    });
    expect(toolUseToAction('spawn_task', { prompt: 'Go.' }, ctx)).toEqual({
      ok: true,
      action: { type: 'spawn_task', prompt: 'Go.' },
    });
  });

  it('refuses a tool that is not offered to tasks (unknown, or needing approval), naming those that are', () => {
    const outcome = toolUseToAction('spawn_task', { prompt: 'Go.', tools: ['mcp__fixture__crash'] }, ctx);
    expect(outcome).toEqual({
      ok: false,
      error:
        'Invalid input for spawn_task: tools "mcp__fixture__crash" cannot be given to a task; use some of: "mcp__fixture__echo", "mcp__fixture__tally".',
    });
    expect(toolUseToAction('spawn_task', { prompt: 'Go.', deadlineSeconds: 0 }, ctx)).toMatchObject({ ok: false });
  });

  it('is offered the runtime’s tools that need no approval: a think’s context lists them', async () => {
    const r = await rig();
    expect(r.caller.definitions().map((t) => t.name)).toContain('mcp__fixture__crash');
    expect(taskOfferableTools(r.caller.definitions()).map((t) => t.name)).not.toContain('mcp__fixture__crash');
  });
});
