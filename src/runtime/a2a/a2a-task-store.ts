/**
 * The A2A SDK's `TaskStore` on LevelDB (`a2a-tasks`): a task is kept under its id with the token that created it,
 * and only that token finds it (`tasks/get` of another's task answers "not found", as for a task that never was).
 * The first write is the turn's admission (`admissionOp`, in the message's own batch); the SDK's saves after it keep
 * the owner and the turn and replace the task.
 */
import { Task, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { A2aTaskRecordSchema, type A2aTaskRecord } from '../../protocol/a2a-task.schema.js';
import { SUBLEVELS, writeSyncBatch, type VigilBatchOp, type VigilDb } from '../../subsystems/store/vigil-db.js';

/** The owner a call acts for: its authenticated user's name (the gateway sets it to the token's). */
export function ownerOf(context: ServerCallContext): string | undefined {
  const user = context.user;
  return user?.isAuthenticated === true ? user.userName : undefined;
}

/** The task states after which nothing changes (A2A's terminal states). */
export const TERMINAL_STATES = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

export class A2aTaskStore implements TaskStore {
  private readonly records;

  constructor(private readonly db: VigilDb) {
    this.records = db.sublevel<string, unknown>(SUBLEVELS.a2aTasks, { valueEncoding: 'json' });
  }

  /** The put that records a new task, for the batch that admits its turn. */
  admissionOp(record: A2aTaskRecord): VigilBatchOp {
    return { type: 'put', sublevel: this.records, key: record.task.id, value: A2aTaskRecordSchema.parse(record) };
  }

  /** The record of `taskId`, whoever owns it; undefined when there is none or it does not parse. */
  async record(taskId: string): Promise<A2aTaskRecord | undefined> {
    const raw = await this.records.get(taskId);
    if (raw === undefined) return undefined;
    const parsed = A2aTaskRecordSchema.safeParse(raw);
    return parsed.success ? parsed.data : undefined;
  }

  /** Every task not yet in a terminal state (their turns may still be answered). */
  async open(): Promise<A2aTaskRecord[]> {
    const open: A2aTaskRecord[] = [];
    for await (const raw of this.records.values()) {
      const parsed = A2aTaskRecordSchema.safeParse(raw);
      if (parsed.success && !TERMINAL_STATES.has(parsed.data.task.status?.state ?? '')) open.push(parsed.data);
    }
    return open;
  }

  /** Writes `record` durably. */
  async put(record: A2aTaskRecord): Promise<void> {
    await writeSyncBatch(this.db, [this.admissionOp(record)]);
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const existing = await this.record(task.id);
    // Every task is recorded at its admission; one the SDK saves otherwise (or for another token) is not kept.
    if (existing === undefined || existing.owner !== ownerOf(context)) return;
    const json = Task.toJSON(task) as A2aTaskRecord['task'];
    // A task once ended stays as it ended: a late save cannot reopen it.
    if (TERMINAL_STATES.has(existing.task.status?.state ?? '') && existing.task.status?.state !== json.status?.state)
      return;
    await this.put({ ...existing, task: json });
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const existing = await this.record(taskId);
    if (existing === undefined || existing.owner !== ownerOf(context)) return undefined;
    return Task.fromJSON(existing.task);
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const owner = ownerOf(context);
    const tasks: Task[] = [];
    for await (const raw of this.records.values()) {
      const parsed = A2aTaskRecordSchema.safeParse(raw);
      if (!parsed.success || parsed.data.owner !== owner) continue;
      if (params.contextId !== '' && parsed.data.task.contextId !== params.contextId) continue;
      tasks.push(Task.fromJSON(parsed.data.task));
    }
    return { tasks, nextPageToken: '', pageSize: tasks.length, totalSize: tasks.length };
  }
}
