/** The A2A task store on LevelDB: owned records, written at admission, never reopened once ended. */
import { Task, TaskState } from '@a2a-js/sdk';
import { ServerCallContext, type User } from '@a2a-js/sdk/server';
import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { A2aTaskStore } from '../../src/runtime/a2a/a2a-task-store.js';
import { identitySummary } from '../../src/gateway/a2a/agent-card.js';
import { writeSyncBatch, type VigilDb } from '../../src/subsystems/store/vigil-db.js';

const as = (userName: string) => new ServerCallContext({ user: { isAuthenticated: true, userName } satisfies User });

function task(id: string, state: TaskState): Task {
  return {
    id,
    contextId: 'ctx',
    status: { state, message: undefined, timestamp: undefined },
    artifacts: [],
    history: [],
    metadata: undefined,
  };
}

async function admitted(db: VigilDb, store: A2aTaskStore, id: string, owner = 'token:a'): Promise<void> {
  const json = Task.toJSON(task(id, TaskState.TASK_STATE_WORKING)) as { id: string; contextId: string };
  await writeSyncBatch(db, [store.admissionOp({ owner, turnId: `t-${id}`, seq: 1, task: json })]);
}

describe('A2aTaskStore', () => {
  it('keeps a task for the token that created it, and for no other', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const store = new A2aTaskStore(db);
    await admitted(db, store, 'x');
    expect((await store.load('x', as('token:a')))?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(await store.load('x', as('token:b'))).toBeUndefined();
    expect(await store.load('x', new ServerCallContext())).toBeUndefined();
    // Another token's save changes nothing; a save of a task never admitted is not kept.
    await store.save(task('x', TaskState.TASK_STATE_FAILED), as('token:b'));
    await store.save(task('y', TaskState.TASK_STATE_WORKING), as('token:a'));
    expect((await store.record('x'))?.task.status?.state).toBe('TASK_STATE_WORKING');
    expect(await store.record('y')).toBeUndefined();
    expect((await store.list({} as never, as('token:b'))).tasks).toEqual([]);
    expect((await store.list({ contextId: '' } as never, as('token:a'))).tasks.map((t) => t.id)).toEqual(['x']);
  });

  it('ends a task once: a later save of another state does not reopen it; the open list leaves it out', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const store = new A2aTaskStore(db);
    await admitted(db, store, 'x');
    await admitted(db, store, 'z');
    await store.save(task('x', TaskState.TASK_STATE_COMPLETED), as('token:a'));
    await store.save(task('x', TaskState.TASK_STATE_WORKING), as('token:a'));
    expect((await store.record('x'))?.task.status?.state).toBe('TASK_STATE_COMPLETED');
    expect((await store.record('x'))?.turnId).toBe('t-x');
    expect((await store.open()).map((record) => record.task.id)).toEqual(['z']);
  });
});

describe('identitySummary', () => {
  it('names the agent from "You are NAME" and describes it by its first paragraph', () => {
    expect(identitySummary('# Identity\n\nYou are Ada Lovelace, a patient\nresearcher.\n\nMore.')).toEqual({
      name: 'Ada Lovelace',
      description: 'You are Ada Lovelace, a patient researcher.',
    });
    expect(identitySummary('# Identity').name).toBe('Vigil');
  });
});
