/** Tasks that act with the Anthropic thinker in a whole runtime (real SDK, fake Messages API, stdio MCP fixture): money. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { dayKeyIn } from '../../src/actors/budget/budget-calendar.js';
import { EventBus } from '../../src/events/event-bus.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { BudgetLedger } from '../../src/subsystems/budget/budget-ledger.js';
import type { VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { costMicroUsd, resolvePrice } from '../../src/subsystems/thinking/pricing.js';
import {
  message,
  startFakeMessagesApi,
  text,
  tokenUsageOf,
  toolUse,
  type FakeMessagesApi,
} from '../fixtures/fake-messages-api.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { stdioFixture } from '../subsystems/tools/mcp-hub.fixture.js';

let api: FakeMessagesApi;
const cleanups: Array<() => Promise<unknown>> = [];
beforeEach(async () => {
  api = await startFakeMessagesApi();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  await api.close();
});

const calls = (file: string) => {
  try {
    return Number(readFileSync(file, 'utf8'));
  } catch {
    return 0;
  }
};

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-tasks-anthropic-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const countFile = join(dir, 'count');
  const config = {
    thinker: 'anthropic',
    anthropicApiKey: 'sk-test',
    anthropicBaseUrl: api.url,
    model: 'claude-sonnet-5-5',
    dailyBudgetUsd: 1,
    mcp: { mcpServers: { fixture: stdioFixture({ FIXTURE_COUNT_FILE: countFile }) } },
  };
  return { config, countFile };
}

async function start(
  config: Record<string, unknown>,
  extra: { db?: VigilDb; bus?: EventBus; clock?: ReturnType<typeof createSimulatedClock> } = {},
) {
  const h = await startRuntime({ config, ...extra });
  cleanups.push(() => (h.runtime as unknown as { core: { parts: { close(): Promise<void> } } }).core.parts.close());
  cleanups.push(() => h.runtime.stop());
  return h;
}

/** Advances the clock a beat at a time until `done` holds (thinks, tasks and tool calls run on real I/O). */
async function until(h: RuntimeHarness, done: () => boolean | Promise<boolean>): Promise<void> {
  await vi.waitFor(
    async () => {
      await h.advance(1000, 1000);
      expect(await done()).toBe(true);
    },
    { timeout: 15_000, interval: 10 },
  );
}

// Sonnet 5.5: $2 per million input tokens, so 2000 uncached input tokens cost $0.004; the cache counts and output
// are the fake's own, so a task call costs a little more: what each call cost is read from the usage the fake reported.
const TASK_CALL = { input_tokens: 2000 };
const PRICE = resolvePrice('claude-sonnet-5-5');
/** The micro-dollars of the `index`th request, priced from the usage the fake answered it with. */
const reportedMicroUsd = (index: number) => costMicroUsd(tokenUsageOf(api.requests[index]!.usage!), PRICE);
/** A think is charged once for all its calls (their usage summed, then priced and rounded up once); a task call alone. */
const thinkMicroUsd = (...indexes: number[]) => {
  const usages = indexes.map((i) => tokenUsageOf(api.requests[i]!.usage!));
  const sum = (field: keyof (typeof usages)[number]) => usages.reduce((total, u) => total + u[field], 0);
  return costMicroUsd(
    {
      inputTokens: sum('inputTokens'),
      outputTokens: sum('outputTokens'),
      cacheReadTokens: sum('cacheReadTokens'),
      cacheWriteTokens: sum('cacheWriteTokens'),
    },
    PRICE,
  );
};
const usd = (microUsd: number) => `$${(microUsd / 1_000_000).toFixed(4)}`;

describe('a task with the Anthropic thinker', () => {
  it('charges the daily ledger for each of its model calls as it lands; tasks.list shows its spend while it runs', async () => {
    const { config, countFile } = setup();
    const h = await start(config);
    await until(h, () => h.ofType('mcp.server_up').length === 1);
    const { turnId } = await h.runtime.send({ text: 'Count twice with a sub-agent.' });
    api.enqueue(
      // The think hands the work to a task with one tool and a cap of $0.005; then ends without answering.
      message(
        [toolUse('spawn_task', { prompt: 'Tally a, then b.', tools: ['mcp__fixture__tally'], maxCostUsd: 0.005 })],
        { input_tokens: 100 },
      ),
      message([]),
      // The task: the first call (about $0.0046) asks for a tally; the second, over the cap in all, hangs.
      message([toolUse('mcp__fixture__tally', { text: 'a' })], TASK_CALL),
      { kind: 'hang' },
    );
    await until(h, () => api.requests.length === 4);
    // The first task call is in the ledger already, while the second is in flight.
    const ledger = new BudgetLedger(h.db);
    const today = dayKeyIn('UTC', h.clock.now());
    const whileRunning = await ledger.readDay(today);
    expect(whileRunning.charges).toBe(2);
    expect(calls(countFile)).toBe(1);
    // Requests: the think, its closing call, then the task's first call (charged) and its second (in flight).
    const firstCall = reportedMicroUsd(2);
    expect(firstCall).toBeGreaterThanOrEqual(4000);
    expect(firstCall).toBeLessThan(5000);
    expect(h.runtime.listTasks()).toEqual([
      expect.objectContaining({
        status: 'running',
        costUsd: firstCall / 1_000_000,
        maxCostUsd: 0.005,
        tools: ['mcp__fixture__tally'],
      }),
    ]);
    expect(h.ofType('tool.called')).toEqual([
      expect.objectContaining({ turnId, taskId: h.runtime.listTasks()[0]!.id }),
    ]);
    expect(h.runtime.budgetStatus().spentTodayUsd).toBeCloseTo(whileRunning.spentMicroUsd / 1_000_000, 9);
  });

  it('ends a task at its cap with what it has; the waiting turn gets the result in its next think', async () => {
    const { config, countFile } = setup();
    const h = await start(config);
    await until(h, () => h.ofType('mcp.server_up').length === 1);
    const { turnId } = await h.runtime.send({ text: 'Count twice with a sub-agent.' });
    api.enqueue(
      message(
        [toolUse('spawn_task', { prompt: 'Tally a, then b.', tools: ['mcp__fixture__tally'], maxCostUsd: 0.005 })],
        { input_tokens: 100 },
      ),
      message([]),
      message([toolUse('mcp__fixture__tally', { text: 'a' })], TASK_CALL),
      message([text('Tallied a; now b.'), toolUse('mcp__fixture__tally', { text: 'b' })], TASK_CALL),
      {
        kind: 'respond',
        respond: (request) => {
          // The results think shows the task's outcome: done, with the cap note.
          expect(JSON.stringify(request.body.messages[0].content)).toContain('stopped at its cost cap');
          return message([toolUse('reply', { turnId, text: 'The sub-agent ran out of money after tallying a.' })]);
        },
      },
      message([]),
    );
    await until(h, () => h.ofType('agent.reply').length === 1);
    expect(h.ofType('agent.reply')).toEqual([
      expect.objectContaining({ turnId, text: 'The sub-agent ran out of money after tallying a.' }),
    ]);
    expect(calls(countFile)).toBe(1);
    const [task] = h.runtime.listTasks();
    // The first task call stays under the $0.005 cap; the second reaches it.
    const [firstCall, secondCall] = [reportedMicroUsd(2), reportedMicroUsd(3)];
    expect(firstCall).toBeLessThan(5000);
    expect(firstCall + secondCall).toBeGreaterThanOrEqual(5000);
    expect(task).toMatchObject({
      status: 'done',
      costUsd: (firstCall + secondCall) / 1_000_000,
      maxCostUsd: 0.005,
      result: `Tallied a; now b.\n\n[The task stopped at its cost cap of $0.0050 after spending ${usd(firstCall + secondCall)} in 2 model calls; this is what it had.]`,
    });
    // Think 1, two task calls, the results think: four charges, every dollar in today's total.
    const day = await new BudgetLedger(h.db).readDay(dayKeyIn('UTC', h.clock.now()));
    expect(day.charges).toBe(4);
    expect(h.runtime.budgetStatus().spentTodayUsd).toBeCloseTo(day.spentMicroUsd / 1_000_000, 9);
    expect(day.spentMicroUsd).toBe(
      thinkMicroUsd(0, 1) + reportedMicroUsd(2) + reportedMicroUsd(3) + thinkMicroUsd(4, 5),
    );
  });

  it('keeps the spend of a task cut by a crash, and reports the task failed after its tool call', async () => {
    const { config, countFile } = setup();
    const h = await start(config);
    await until(h, () => h.ofType('mcp.server_up').length === 1);
    const { turnId } = await h.runtime.send({ text: 'Count with a sub-agent.' });
    api.enqueue(
      message([toolUse('spawn_task', { prompt: 'Tally a.', tools: ['mcp__fixture__tally'] })], { input_tokens: 100 }),
      message([]),
      message([toolUse('mcp__fixture__tally', { text: 'a' })], TASK_CALL),
      { kind: 'hang' },
    );
    await until(h, () => api.requests.length === 4);
    const spent = h.runtime.budgetStatus().spentTodayUsd;
    // The think, its closing call and the task's first call, each priced from what the fake reported.
    expect(spent).toBeCloseTo((thinkMicroUsd(0, 1) + reportedMicroUsd(2)) / 1_000_000, 9);
    const taskId = h.runtime.listTasks()[0]!.id;

    // kill -9 now: the successor gets the db as it is.
    const db = new MemoryLevel() as unknown as VigilDb;
    const bytes = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const;
    for await (const [key, value] of h.db.iterator(bytes)) await db.put(key, value, bytes);
    await h.crash();
    const clock = createSimulatedClock(h.clock.now());
    const bus = new EventBus({ clock, currentBeat: () => 0 });
    const events: VigilEvent[] = [];
    bus.events$.subscribe((event) => events.push(event));
    api.enqueue(message([toolUse('reply', { turnId, text: 'The sub-agent was cut off.' })]), message([]));
    const next = await start(config, { db, bus, clock });
    expect(next.runtime.budgetStatus().spentTodayUsd).toBeCloseTo(spent, 9);
    expect(events.filter((e) => e.type === 'swarm.task_interrupted')).toEqual([
      expect.objectContaining({ taskId, outcome: 'failed' }),
    ]);
    await until(next, () => events.some((e) => e.type === 'agent.reply'));
    expect(calls(countFile)).toBe(1);
    expect(next.runtime.listTasks()[0]).toMatchObject({
      id: taskId,
      status: 'failed',
      error: expect.stringContaining('mcp__fixture__tally'),
    });
  });
});
