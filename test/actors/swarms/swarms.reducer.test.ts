/** Tests for the swarms reducer and selectors: task lifecycle, concurrency, consumption, requeue and bounded history. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_CONSUMED_TASKS,
  SwarmsStateSchema,
  findTask,
  initialSwarmsState,
  runningTasks,
  startableTasks,
  swarmsReducer,
  unconsumedResults,
} from '../../../src/actors/swarms/index.js';
import type { SwarmsEvent, SwarmsState } from '../../../src/actors/swarms/index.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

const spawn = (id: string, at = T0): SwarmsEvent => ({
  type: 'swarm.spawn',
  at,
  task: { id, turnId: 't1', prompt: `do ${id}` },
});
const run = (state: SwarmsState, ...events: SwarmsEvent[]): SwarmsState => events.reduce(swarmsReducer, state);
const ids = (tasks: { id: string }[]): string[] => tasks.map((task) => task.id);

describe('initialSwarmsState', () => {
  it('starts with no tasks and three slots when no concurrency is given', () => {
    expect(initialSwarmsState()).toEqual({ concurrency: 3, tasks: [] });
    expect(initialSwarmsState(5).concurrency).toBe(5);
  });
});

describe('swarmsReducer task lifecycle', () => {
  it('queues a spawned task, unconsumed, stamped with the event time', () => {
    const state = run(initialSwarmsState(), spawn('a'));
    expect(state.tasks).toEqual([
      { id: 'a', turnId: 't1', prompt: 'do a', status: 'queued', consumed: false, createdAt: T0 },
    ]);
  });

  it('ignores a spawn whose id already exists', () => {
    const state = run(initialSwarmsState(), spawn('a'));
    expect(swarmsReducer(state, spawn('a', T0 + 1))).toBe(state);
  });

  it('starts a queued task, stamping startedAt', () => {
    const state = run(initialSwarmsState(), spawn('a'), { type: 'swarm.started', at: T0 + 1, id: 'a' });
    expect(findTask(state, 'a')).toMatchObject({ status: 'running', startedAt: T0 + 1 });
  });

  it('does not start a task that is not queued', () => {
    const running = run(initialSwarmsState(), spawn('a'), { type: 'swarm.started', at: T0 + 1, id: 'a' });
    expect(swarmsReducer(running, { type: 'swarm.started', at: T0 + 2, id: 'a' })).toBe(running);
  });

  it('records a success with its result and finish time', () => {
    const state = run(
      initialSwarmsState(),
      spawn('a'),
      { type: 'swarm.started', at: T0 + 1, id: 'a' },
      { type: 'swarm.succeeded', at: T0 + 2, id: 'a', result: '42' },
    );
    expect(findTask(state, 'a')).toMatchObject({ status: 'done', result: '42', finishedAt: T0 + 2, consumed: false });
  });

  it('records a failure with its error and finish time', () => {
    const state = run(
      initialSwarmsState(),
      spawn('a'),
      { type: 'swarm.started', at: T0 + 1, id: 'a' },
      { type: 'swarm.failed', at: T0 + 2, id: 'a', error: 'timeout' },
    );
    expect(findTask(state, 'a')).toMatchObject({ status: 'failed', error: 'timeout', finishedAt: T0 + 2 });
  });

  it('keeps the first outcome of a finished task', () => {
    const done = run(initialSwarmsState(), spawn('a'), { type: 'swarm.succeeded', at: T0 + 2, id: 'a', result: 'ok' });
    expect(swarmsReducer(done, { type: 'swarm.failed', at: T0 + 3, id: 'a', error: 'late' })).toBe(done);
    expect(swarmsReducer(done, { type: 'swarm.succeeded', at: T0 + 3, id: 'a', result: 'again' })).toBe(done);
  });

  it('changes nothing for events naming an unknown id', () => {
    const state = run(initialSwarmsState(), spawn('a'));
    expect(swarmsReducer(state, { type: 'swarm.started', at: T0, id: 'zz' })).toBe(state);
    expect(swarmsReducer(state, { type: 'swarm.succeeded', at: T0, id: 'zz', result: 'r' })).toBe(state);
    expect(swarmsReducer(state, { type: 'swarm.failed', at: T0, id: 'zz', error: 'e' })).toBe(state);
    expect(swarmsReducer(state, { type: 'swarm.consumed', at: T0, ids: ['zz'] })).toBe(state);
  });
});

describe('swarmsReducer swarm.consumed', () => {
  const finished = run(
    initialSwarmsState(),
    spawn('a'),
    spawn('b'),
    spawn('c'),
    { type: 'swarm.succeeded', at: T0 + 1, id: 'a', result: 'ra' },
    { type: 'swarm.failed', at: T0 + 1, id: 'b', error: 'eb' },
  );

  it('marks finished tasks consumed so they leave the unconsumed results', () => {
    expect(ids(unconsumedResults(finished))).toEqual(['a', 'b']);
    const next = swarmsReducer(finished, { type: 'swarm.consumed', at: T0 + 2, ids: ['a', 'b'] });
    expect(unconsumedResults(next)).toEqual([]);
    expect(findTask(next, 'a')?.consumed).toBe(true);
  });

  it('ignores ids of tasks that have not finished', () => {
    const next = swarmsReducer(finished, { type: 'swarm.consumed', at: T0 + 2, ids: ['c'] });
    expect(next).toBe(finished);
  });

  it('keeps at most 100 consumed finished tasks, forgetting the ones that finished first', () => {
    let state = initialSwarmsState();
    for (let i = 0; i < MAX_CONSUMED_TASKS + 3; i += 1) {
      state = run(
        state,
        spawn(`t${i}`, T0 + i),
        { type: 'swarm.succeeded', at: T0 + 1_000 + i, id: `t${i}`, result: `${i}` },
        { type: 'swarm.consumed', at: T0 + 1_000 + i, ids: [`t${i}`] },
      );
    }
    state = run(state, spawn('waiting'), spawn('fresh'), {
      type: 'swarm.succeeded',
      at: T0 + 9_999,
      id: 'fresh',
      result: 'r',
    });
    expect(state.tasks.filter((task) => task.consumed)).toHaveLength(MAX_CONSUMED_TASKS);
    expect(findTask(state, 't0')).toBeUndefined();
    expect(findTask(state, 't2')).toBeUndefined();
    expect(findTask(state, 't3')).toBeDefined();
    expect(findTask(state, 'waiting')?.status).toBe('queued');
    expect(ids(unconsumedResults(state))).toEqual(['fresh']);
  });
});

describe('swarmsReducer tasks that act', () => {
  const spawnWithLimits = (id: string): SwarmsEvent => ({
    type: 'swarm.spawn',
    at: T0,
    task: { id, turnId: 't1', prompt: `do ${id}`, tools: ['mcp__s__t'], deadlineMs: 5000, maxCostMicroUsd: 100 },
  });

  it('keeps a task’s tools and limits, and sets its deadline from its start', () => {
    const state = run(initialSwarmsState(), spawnWithLimits('a'), { type: 'swarm.started', at: T0 + 10, id: 'a' });
    expect(findTask(state, 'a')).toMatchObject({
      tools: ['mcp__s__t'],
      deadlineMs: 5000,
      maxCostMicroUsd: 100,
      startedAt: T0 + 10,
      deadlineAt: T0 + 5010,
    });
    const requeued = run(state, { type: 'swarm.requeue_running', at: T0 + 20 });
    expect(findTask(requeued, 'a')).not.toHaveProperty('deadlineAt');
  });

  it('adds each charge to the task’s spend, even after it finished', () => {
    const state = run(
      initialSwarmsState(),
      spawnWithLimits('a'),
      { type: 'swarm.charged', at: T0, id: 'a', costMicroUsd: 30 },
      { type: 'swarm.cancelled', at: T0 + 1, id: 'a', reason: 'stop' },
      { type: 'swarm.charged', at: T0 + 2, id: 'a', costMicroUsd: 12 },
    );
    expect(findTask(state, 'a')).toMatchObject({ status: 'cancelled', costMicroUsd: 42 });
  });

  it('cancels a queued or running task as a finished result, never a finished one', () => {
    const state = run(
      initialSwarmsState(),
      spawn('q'),
      spawn('r'),
      spawn('d'),
      { type: 'swarm.started', at: T0, id: 'r' },
      { type: 'swarm.succeeded', at: T0 + 1, id: 'd', result: 'ok' },
      { type: 'swarm.cancelled', at: T0 + 2, id: 'q', reason: 'not needed' },
      { type: 'swarm.cancelled', at: T0 + 2, id: 'r', reason: 'not needed' },
      { type: 'swarm.cancelled', at: T0 + 2, id: 'd', reason: 'too late' },
    );
    expect(state.tasks.map((t) => [t.id, t.status, t.error])).toEqual([
      ['q', 'cancelled', 'not needed'],
      ['r', 'cancelled', 'not needed'],
      ['d', 'done', undefined],
    ]);
    expect(ids(unconsumedResults(state))).toEqual(['q', 'r', 'd']);
  });
});

describe('swarmsReducer swarm.requeue_running', () => {
  it('puts running tasks back in the queue under the same id without a start time', () => {
    const state = run(
      initialSwarmsState(),
      spawn('a'),
      spawn('b'),
      { type: 'swarm.started', at: T0 + 1, id: 'a' },
      { type: 'swarm.requeue_running', at: T0 + 2 },
    );
    expect(state.tasks.map((task) => task.status)).toEqual(['queued', 'queued']);
    expect('startedAt' in findTask(state, 'a')!).toBe(false);
    expect(ids(startableTasks(state))).toEqual(['a', 'b']);
  });

  it('changes nothing when no task is running', () => {
    const state = run(initialSwarmsState(), spawn('a'));
    expect(swarmsReducer(state, { type: 'swarm.requeue_running', at: T0 })).toBe(state);
  });
});

describe('swarm selectors', () => {
  it('offers queued tasks in creation order up to the free concurrency slots', () => {
    const state = run(initialSwarmsState(2), spawn('a'), spawn('b'), spawn('c'), spawn('d'));
    expect(ids(startableTasks(state))).toEqual(['a', 'b']);
    const oneRunning = swarmsReducer(state, { type: 'swarm.started', at: T0, id: 'c' });
    expect(ids(runningTasks(oneRunning))).toEqual(['c']);
    expect(ids(startableTasks(oneRunning))).toEqual(['a']);
    const full = swarmsReducer(oneRunning, { type: 'swarm.started', at: T0, id: 'a' });
    expect(startableTasks(full)).toEqual([]);
  });
});

const idArb = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
const timeArb = fc.integer({ min: T0, max: T0 + 3_600_000 });
const eventArb: fc.Arbitrary<SwarmsEvent> = fc.oneof(
  fc.record({
    type: fc.constant('swarm.spawn' as const),
    at: timeArb,
    task: fc.record(
      { id: idArb, turnId: fc.string(), prompt: fc.string(), deadlineMs: fc.integer({ min: 1, max: 1_000_000 }) },
      { requiredKeys: ['id', 'turnId', 'prompt'] },
    ),
  }),
  fc.record({
    type: fc.constant('swarm.charged' as const),
    at: timeArb,
    id: idArb,
    costMicroUsd: fc.integer({ min: 0, max: 1_000_000 }),
  }),
  fc.record({ type: fc.constant('swarm.cancelled' as const), at: timeArb, id: idArb, reason: fc.string() }),
  fc.record({ type: fc.constant('swarm.started' as const), at: timeArb, id: idArb }),
  fc.record({ type: fc.constant('swarm.succeeded' as const), at: timeArb, id: idArb, result: fc.string() }),
  fc.record({ type: fc.constant('swarm.failed' as const), at: timeArb, id: idArb, error: fc.string() }),
  fc.record({ type: fc.constant('swarm.consumed' as const), at: timeArb, ids: fc.array(idArb) }),
  fc.record({ type: fc.constant('swarm.requeue_running' as const), at: timeArb }),
);

describe('swarmsReducer properties', () => {
  it('always yields a schema-valid state with unique ids and consistent task fields', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 60 }), (events) => {
        const state = events.reduce(swarmsReducer, initialSwarmsState(2));
        expect(SwarmsStateSchema.safeParse(state).success).toBe(true);
        expect(new Set(ids(state.tasks)).size).toBe(state.tasks.length);
        for (const task of state.tasks) {
          const finished = task.status === 'done' || task.status === 'failed' || task.status === 'cancelled';
          expect(task.finishedAt !== undefined).toBe(finished);
          if (task.deadlineAt !== undefined) expect(task.deadlineAt).toBe(task.startedAt! + task.deadlineMs!);
          if (task.consumed) expect(finished).toBe(true);
          if (task.status === 'queued') expect(task.startedAt).toBeUndefined();
          if (task.status === 'running') expect(task.startedAt).toBeDefined();
        }
        expect(startableTasks(state).length + runningTasks(state).length).toBeLessThanOrEqual(
          Math.max(state.concurrency, runningTasks(state).length),
        );
      }),
    );
  });
});
