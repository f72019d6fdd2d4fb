/** Tasks at boot, as a pure function: brought back from the task log, re-queued, or failed after non-idempotent calls. */
import { describe, expect, it } from 'vitest';
import { swarmsReducer, findTask } from '../../src/actors/swarms/swarms.reducer.js';
import type { HeartbeatSeed } from '../../src/heartbeat/heartbeat.types.js';
import type { ToolCallRecord } from '../../src/protocol/tool-call.schema.js';
import { coldSeed } from '../../src/runtime/heartbeat-seed.js';
import { interruptedText, recoverTasks } from '../../src/runtime/task-recovery.js';
import type { SwarmTaskRecord } from '../../src/subsystems/swarm-results/swarm-task-log.js';

const NOW = Date.parse('2026-03-01T10:00:00Z');

function seed(pendingTurns: string[] = []): HeartbeatSeed {
  const base = coldSeed({
    now: NOW,
    beatMs: 1000,
    wmCapacity: 7,
    swarmConcurrency: 3,
    budget: {
      timezone: 'UTC',
      capMicroUsd: 5_000_000,
      today: {
        dayKey: '2026-03-01',
        spentMicroUsd: 0,
        topUpMicroUsd: 0,
        charges: 0,
        inputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      },
      wakeSignal: null,
    },
    turn: null,
    messages: [],
  });
  return {
    ...base,
    turns: {
      ...base.turns,
      pending: pendingTurns.map((turnId) => ({ turnId, text: 'hi', from: 'user', at: NOW - 1000 })),
    },
  };
}

const record = (id: string, turnId: string, startedAt?: number): SwarmTaskRecord => ({
  id,
  turnId,
  prompt: `do ${id}`,
  tools: ['mcp__s__write'],
  deadlineMs: 60_000,
  maxCostMicroUsd: 100_000,
  createdAt: NOW - 5000,
  ...(startedAt === undefined ? {} : { startedAt }),
});

const call = (callId: string, taskId: string, idempotent: boolean, done = false): ToolCallRecord => ({
  callId,
  taskId,
  turnId: 't-1',
  name: idempotent ? 'mcp__s__read' : 'mcp__s__write',
  args: {},
  at: NOW - 3000,
  idempotent,
  ...(done ? { result: { ok: true, durationMs: 1, resultBytes: 2, text: 'ok' } } : {}),
});

describe('recoverTasks', () => {
  it('brings back a task the checkpoint never saw: queued if it never started, its turn waiting for it', () => {
    const out = recoverTasks({
      seed: seed(['t-1']),
      taskLog: [record('task-a', 't-1')],
      results: [],
      toolCalls: [],
      now: NOW,
    });
    expect(out.interrupted).toEqual([]);
    expect(findTask(out.seed.actors.swarms, 'task-a')).toMatchObject({
      status: 'queued',
      tools: ['mcp__s__write'],
      deadlineMs: 60_000,
      maxCostMicroUsd: 100_000,
    });
    expect(out.seed.turns.pending).toEqual([expect.objectContaining({ turnId: 't-1', awaitingTask: true })]);
  });

  it('re-queues a started task whose calls were all idempotent, and fails one with a non-idempotent call, listing them', () => {
    const calls = [call('c-1', 'task-a', true, true), call('c-2', 'task-b', true, true), call('c-3', 'task-b', false)];
    const out = recoverTasks({
      seed: seed(['t-1']),
      taskLog: [record('task-a', 't-1', NOW - 4000), record('task-b', 't-1', NOW - 4000)],
      results: [],
      toolCalls: calls,
      now: NOW,
    });
    expect(out.interrupted).toEqual([
      { taskId: 'task-a', turnId: 't-1', outcome: 'requeued', callIds: ['c-1'] },
      {
        taskId: 'task-b',
        turnId: 't-1',
        outcome: 'failed',
        callIds: ['c-2', 'c-3'],
        text: interruptedText('task-b', calls.slice(1)),
      },
    ]);
    expect(interruptedText('task-b', calls.slice(1))).toBe(
      'Task task-b was interrupted by a restart or a stop after tool calls whose outcome is unknown to it: mcp__s__read (c-2: completed), mcp__s__write (c-3: outcome unknown). ' +
        'It was not run again, so those calls were not repeated; check their effects before starting it anew.',
    );
    expect(findTask(out.seed.actors.swarms, 'task-a')).toMatchObject({ status: 'queued' });
    expect(findTask(out.seed.actors.swarms, 'task-b')).toMatchObject({ status: 'failed', finishedAt: NOW });
  });

  it('applies a recorded outcome to a task spawned after the checkpoint when its turn still waits, and skips one whose turn ended', () => {
    const out = recoverTasks({
      seed: seed(['t-1']),
      taskLog: [record('task-a', 't-1', NOW - 4000), record('task-old', 't-gone', NOW - 4000)],
      results: [
        { taskId: 'task-a', status: 'cancelled', text: 'Cancelled.', finishedAt: NOW - 100 },
        { taskId: 'task-old', status: 'done', text: 'old', finishedAt: NOW - 100 },
      ],
      toolCalls: [call('c-1', 'task-a', false, true)],
      now: NOW,
    });
    expect(out.interrupted).toEqual([]);
    expect(out.seed.actors.swarms.tasks.map((t) => [t.id, t.status])).toEqual([['task-a', 'cancelled']]);
  });

  it('re-queues a task the checkpoint saw running (requeue_running) and leaves the checkpoint’s finished tasks alone', () => {
    const base = seed();
    let swarms = swarmsReducer(base.actors.swarms, {
      type: 'swarm.spawn',
      at: NOW - 9000,
      task: { id: 'task-r', turnId: 't-9', prompt: 'run' },
    });
    swarms = swarmsReducer(swarms, { type: 'swarm.started', at: NOW - 8000, id: 'task-r' });
    const out = recoverTasks({
      seed: { ...base, actors: { ...base.actors, swarms } },
      taskLog: [],
      results: [],
      toolCalls: [],
      now: NOW,
    });
    expect(findTask(out.seed.actors.swarms, 'task-r')).toMatchObject({ status: 'queued' });
    expect(findTask(out.seed.actors.swarms, 'task-r')).not.toHaveProperty('startedAt');
  });
});
