/** Sub-agent tasks that act, in a whole runtime (offline thinker, the stdio MCP fixture): tools, deadline, cancel, crash. */
import { join } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { describe, expect, it, vi } from 'vitest';
import { EventBus } from '../../src/events/event-bus.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import type { McpStdioServer } from '../../src/protocol/mcp-config.schema.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import type { VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { SwarmResultLog } from '../../src/subsystems/swarm-results/swarm-result-log.js';
import { ToolCallLog } from '../../src/subsystems/tools/tool-call-log.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { stdioFixture } from '../subsystems/tools/mcp-hub.fixture.js';
import { calls, until, useCleanups } from './runtime-tools.fixture.js';

const { cleanups, tempDir } = useCleanups('vigil-runtime-tasks-');

/** Waits on real I/O without moving the clock. */
async function untilReal(h: RuntimeHarness, done: () => boolean): Promise<void> {
  await vi.waitFor(
    async () => {
      await h.settle();
      expect(done()).toBe(true);
    },
    { timeout: 15_000, interval: 10 },
  );
}

/** A copy of everything `db` holds now. */
async function snapshot(db: VigilDb): Promise<VigilDb> {
  const copy = new MemoryLevel() as unknown as VigilDb;
  // Byte for byte: checkpoint bodies are binary.
  const bytes = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const;
  for await (const [key, value] of db.iterator(bytes)) await copy.put(key, value, bytes);
  return copy;
}

const mcpConfig = (countFile: string, extra: Partial<McpStdioServer> = {}, config: Record<string, unknown> = {}) => ({
  ...config,
  mcp: { mcpServers: { fixture: stdioFixture({ FIXTURE_COUNT_FILE: countFile }, extra) } },
});

async function started(config: Record<string, unknown>): Promise<RuntimeHarness> {
  const h = await startRuntime({ config });
  // As after kill -9 for a crashed one: its servers are stopped last.
  cleanups.push(() => (h.runtime as unknown as { core: { parts: { close(): Promise<void> } } }).core.parts.close());
  cleanups.push(() => h.runtime.stop());
  await until(h, () => h.ofType('mcp.server_up').length === 1);
  return h;
}

const endings = (events: readonly VigilEvent[], turnId: string) =>
  events.filter((e) => (e.type === 'agent.reply' || e.type === 'agent.unanswered') && e.turnId === turnId);

describe('sub-agent tasks that act', () => {
  it('runs its /tool lines through the durable caller under its task id, and reports the results to the waiting turn', async () => {
    const countFile = join(tempDir(), 'count');
    const h = await started(mcpConfig(countFile));
    const { turnId } = await h.runtime.send({
      text: '/task tools=fixture__tally,fixture__echo\nCount once.\n/tool fixture__tally {"text": "hello task"}\n/tool fixture__add {"a": 1, "b": 2}',
    });
    await until(h, () => endings(h.events, turnId).length === 1);
    const [spawned] = h.ofType('swarm.task_spawned');
    const taskId = spawned!.taskId;
    expect(h.ofType('tool.called')).toEqual([expect.objectContaining({ turnId, taskId, name: 'mcp__fixture__tally' })]);
    expect(calls(countFile)).toBe(1);
    const [record] = await (await ToolCallLog.open(h.db)).all();
    expect(record).toMatchObject({ taskId, turnId, name: 'mcp__fixture__tally', result: { ok: true } });
    const reply = endings(h.events, turnId)[0]!;
    expect(reply).toMatchObject({ type: 'agent.reply' });
    expect((reply as { text: string }).text).toContain('mcp__fixture__tally returned: hello task');
    expect((reply as { text: string }).text).toContain("mcp__fixture__add is not one of this task's tools");
    expect(h.runtime.listTasks()).toEqual([
      expect.objectContaining({
        id: taskId,
        status: 'done',
        turnId,
        tools: ['mcp__fixture__echo', 'mcp__fixture__tally'],
        deadlineSeconds: 600,
        maxCostUsd: 0.5,
        costUsd: 0,
        startedAt: expect.any(String),
        finishedAt: expect.any(String),
      }),
    ]);
    expect(h.runtime.listTasks()[0]).not.toHaveProperty('deadlineAt');
  });

  it('refuses a /task with a tool the runtime does not offer, spawning nothing', async () => {
    const h = await started(mcpConfig(join(tempDir(), 'count')));
    const { turnId } = await h.runtime.send({ text: '/task tools=fixture__nope\n/tool fixture__nope' });
    await until(h, () => endings(h.events, turnId).length === 1);
    expect(endings(h.events, turnId)[0]).toMatchObject({
      text: expect.stringMatching(
        /^Tools mcp__fixture__nope cannot be given to a task; use some of: .*mcp__fixture__echo/,
      ),
    });
    expect(h.ofType('swarm.task_spawned')).toEqual([]);
  });

  it('stops a task at its deadline on the runtime clock, aborting its tool call in flight; the turn is told it failed', async () => {
    const countFile = join(tempDir(), 'count');
    const h = await started(mcpConfig(countFile, {}, { taskDeadlineMs: 60_000 }));
    const { turnId } = await h.runtime.send({ text: '/task tools=fixture__hang deadline=5\n/tool fixture__hang' });
    await until(h, () => h.ofType('tool.called').length === 1 && calls(countFile) === 1);
    const [task] = h.runtime.listTasks();
    expect(task).toMatchObject({
      status: 'running',
      deadlineSeconds: 5,
      deadlineAt: new Date(Date.parse(task!.startedAt!) + 5000).toISOString(),
    });
    // A millisecond short of the deadline nothing happens.
    const left = Date.parse(task!.deadlineAt!) - h.clock.now();
    await h.advance(left - 1, left - 1);
    expect(h.runtime.listTasks()[0]!.status).toBe('running');
    await h.advance(1, 1);
    await untilReal(h, () => h.ofType('swarm.task_finished').length === 1);
    expect(h.ofType('swarm.task_finished')).toEqual([expect.objectContaining({ taskId: task!.id, status: 'failed' })]);
    expect(h.ofType('tool.completed')).toEqual([expect.objectContaining({ name: 'mcp__fixture__hang', ok: false })]);
    expect(h.runtime.listTasks()[0]).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('passed its deadline of 5 s'),
    });
    await until(h, () => endings(h.events, turnId).length === 1);
    expect(endings(h.events, turnId)[0]).toMatchObject({
      type: 'agent.reply',
      text: expect.stringContaining('passed its deadline'),
    });
    const [outcome] = await new SwarmResultLog(h.db).find([task!.id]);
    expect(outcome).toMatchObject({ status: 'failed' });
  });

  it('cancels a running task (its tool call aborted) and a queued one; both are recorded and their turns told "cancelled"', async () => {
    const countFile = join(tempDir(), 'count');
    const h = await started(mcpConfig(countFile, {}, { swarmConcurrency: 1 }));
    const first = await h.runtime.send({ text: '/task tools=fixture__hang\n/tool fixture__hang' });
    await until(h, () => h.ofType('tool.called').length === 1 && calls(countFile) === 1);
    const second = await h.runtime.send({ text: '/task tools=fixture__tally\n/tool fixture__tally {"text": "never"}' });
    await until(h, () => h.ofType('swarm.task_spawned').length === 2);
    const [running, queued] = h.runtime.listTasks();
    expect([running!.status, queued!.status]).toEqual(['running', 'queued']);

    const dropped = await h.runtime.cancelTask(queued!.id);
    expect(dropped).toMatchObject({
      id: queued!.id,
      status: 'cancelled',
      error: 'Cancelled by an operator (tasks.cancel).',
    });
    const aborted = await h.runtime.cancelTask(running!.id);
    expect(aborted).toMatchObject({ id: running!.id, status: 'cancelled' });
    expect(h.ofType('swarm.task_finished')).toEqual([
      expect.objectContaining({ taskId: queued!.id, status: 'cancelled' }),
      expect.objectContaining({ taskId: running!.id, status: 'cancelled' }),
    ]);
    await untilReal(h, () => h.ofType('tool.completed').length === 1);
    expect(h.ofType('tool.completed')[0]).toMatchObject({ name: 'mcp__fixture__hang', ok: false });
    expect(await new SwarmResultLog(h.db).find([running!.id, queued!.id])).toEqual([
      expect.objectContaining({ taskId: running!.id, status: 'cancelled' }),
      expect.objectContaining({ taskId: queued!.id, status: 'cancelled' }),
    ]);

    await until(h, () => endings(h.events, first.turnId).length === 1 && endings(h.events, second.turnId).length === 1);
    for (const turnId of [first.turnId, second.turnId]) {
      expect(endings(h.events, turnId)).toEqual([
        expect.objectContaining({ type: 'agent.reply', text: expect.stringContaining('was cancelled') }),
      ]);
    }
    // The queued task never ran: its tool was never called.
    expect(h.ofType('tool.called')).toHaveLength(1);
    await expect(h.runtime.cancelTask(running!.id)).rejects.toMatchObject({
      code: 'TASK_FINISHED',
      data: { id: running!.id, status: 'cancelled' },
    });
    await expect(h.runtime.cancelTask('task-nope')).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });
  });
});

describe('a task the heartbeat stops and re-queues (the hard stop)', () => {
  it('is not run again after a non-idempotent call: failed and reported when it would start again', async () => {
    const countFile = join(tempDir(), 'count');
    const h = await started(mcpConfig(countFile, {}, { offlineCostUsd: 0.01 }));
    const { turnId } = await h.runtime.send({ text: '/task tools=fixture__hang\n/tool fixture__hang' });
    await until(h, () => h.ofType('tool.called').length === 1 && calls(countFile) === 1);
    const [task] = h.runtime.listTasks();
    // A cap far below today's spend: the hard stop stops the task at once and re-queues it.
    await h.runtime.setCap({ dailyCapUsd: 0.001 });
    await untilReal(h, () => h.runtime.listTasks()[0]!.status === 'queued' && h.ofType('tool.completed').length === 1);
    expect(h.runtime.budgetStatus().state).toBe('exceeded');
    await h.runtime.topUp({ amountUsd: 5 });
    await until(h, () => h.ofType('swarm.task_interrupted').length === 1 && endings(h.events, turnId).length === 1);
    expect(h.ofType('swarm.task_interrupted')).toEqual([
      expect.objectContaining({ taskId: task!.id, turnId, outcome: 'failed' }),
    ]);
    expect(h.runtime.listTasks()[0]).toMatchObject({
      id: task!.id,
      status: 'failed',
      error: expect.stringContaining('after tool calls whose outcome is unknown to it: mcp__fixture__hang'),
    });
    expect(endings(h.events, turnId)).toEqual([
      expect.objectContaining({ type: 'agent.reply', text: expect.stringContaining('mcp__fixture__hang') }),
    ]);
    expect(calls(countFile)).toBe(1);
    expect(h.ofType('tool.called')).toHaveLength(1);
  });
});

describe('sub-agent tasks across a crash', () => {
  /** Crashes `h` (its db as it was at the crash goes to the successor) and boots a successor, events seen from the boot on. */
  async function crashAndRestart(h: RuntimeHarness, config: Record<string, unknown>) {
    const db = await snapshot(h.db);
    await h.crash();
    const clock = createSimulatedClock(h.clock.now());
    const bus = new EventBus({ clock, currentBeat: () => 0 });
    const events: VigilEvent[] = [];
    bus.events$.subscribe((event) => events.push(event));
    const next = await startRuntime({ db, clock, bus, config });
    cleanups.push(() => next.runtime.stop());
    return { next, events, db };
  }

  it('reports a task cut after a non-idempotent call as failed, never running it again; its turn ends once', async () => {
    const countFile = join(tempDir(), 'count');
    const config = mcpConfig(countFile);
    const h = await started(config);
    const { turnId } = await h.runtime.send({ text: '/task tools=fixture__hang\n/tool fixture__hang' });
    await until(h, () => h.ofType('tool.called').length === 1 && calls(countFile) === 1);
    const taskId = h.ofType('swarm.task_spawned')[0]!.taskId;
    const callId = h.ofType('tool.called')[0]!.callId;

    const { next, events, db } = await crashAndRestart(h, config);
    expect(events.filter((e) => e.type === 'swarm.task_interrupted')).toEqual([
      expect.objectContaining({ taskId, turnId, outcome: 'failed', callIds: [callId] }),
    ]);
    expect(events.filter((e) => e.type === 'tool.interrupted')).toEqual([expect.objectContaining({ callId })]);
    expect(next.runtime.listTasks()).toEqual([
      expect.objectContaining({
        id: taskId,
        status: 'failed',
        error: expect.stringContaining(
          `interrupted by a restart or a stop after tool calls whose outcome is unknown to it: mcp__fixture__hang (${callId}: outcome unknown)`,
        ),
      }),
    ]);
    await until(next, () =>
      events.some((e) => (e.type === 'agent.reply' || e.type === 'agent.unanswered') && e.turnId === turnId),
    );
    await next.advance(5000);
    expect(endings(events, turnId)).toEqual([
      expect.objectContaining({
        type: 'agent.reply',
        text: expect.stringContaining('interrupted by a restart or a stop after tool calls'),
      }),
    ]);
    expect(calls(countFile)).toBe(1);
    expect(events.filter((e) => e.type === 'tool.called')).toEqual([]);
    expect(await new SwarmResultLog(db).find([taskId])).toEqual([expect.objectContaining({ status: 'failed' })]);

    // Reported once: a second boot says nothing more about it.
    await next.runtime.stop();
    const bus = new EventBus({ clock: createSimulatedClock(next.clock.now()), currentBeat: () => 0 });
    const again: VigilEvent[] = [];
    bus.events$.subscribe((event) => again.push(event));
    const third = await startRuntime({ db, bus, config });
    cleanups.push(() => third.runtime.stop());
    expect(again.filter((e) => e.type === 'swarm.task_interrupted')).toEqual([]);
    expect(third.runtime.listTasks()[0]).toMatchObject({ id: taskId, status: 'failed' });
  });

  it('re-queues a task cut while only idempotent calls were made; it runs again under the same id and its turn waits for it', async () => {
    const countFile = join(tempDir(), 'count');
    const config = mcpConfig(countFile, { idempotentTools: ['hang'] });
    const h = await started(config);
    const { turnId } = await h.runtime.send({ text: '/task tools=fixture__hang\n/tool fixture__hang' });
    await until(h, () => h.ofType('tool.called').length === 1 && calls(countFile) === 1);
    const taskId = h.ofType('swarm.task_spawned')[0]!.taskId;

    // The successor has no MCP servers, so the re-run's call fails at once, deterministically (a started server
    // would race the first beat).
    const { next, events } = await crashAndRestart(h, {});
    expect(events.filter((e) => e.type === 'swarm.task_interrupted')).toEqual([
      expect.objectContaining({ taskId, turnId, outcome: 'requeued' }),
    ]);
    await until(next, () => endings(events, turnId).length === 1);
    expect(events.filter((e) => e.type === 'tool.called')).toEqual([
      expect.objectContaining({ taskId, turnId, name: 'mcp__fixture__hang' }),
    ]);
    expect(next.runtime.listTasks()).toEqual([
      expect.objectContaining({
        id: taskId,
        status: 'done',
        result: expect.stringContaining('mcp__fixture__hang failed'),
      }),
    ]);
    // Its turn waited for the task and got its result, rather than being thought about anew.
    expect(events.filter((e) => e.type === 'swarm.task_spawned')).toEqual([]);
    expect(endings(events, turnId)).toEqual([
      expect.objectContaining({ type: 'agent.reply', text: expect.stringContaining('mcp__fixture__hang failed') }),
    ]);
  });
});
