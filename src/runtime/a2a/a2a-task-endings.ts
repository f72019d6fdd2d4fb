/**
 * Ends A2A tasks with their turns: a task's record becomes `completed` with the agent's reply (or `failed` with why
 * the turn went unanswered) when its turn ends, whether the request that sent it still waits or the daemon was
 * killed since. At start every open task is looked up in the conversation, so an ending written before (or during)
 * a restart is not missed; the live feed is subscribed first, so none falls between the two.
 */
import { Role, Task, TaskState, type Message } from '@a2a-js/sdk';
import type { A2aHost, TurnOutcome } from './a2a-host.js';
import type { VigilLogger } from '../../shared/logger.js';
import { runDetached } from '../../shared/run-detached.js';
import { TERMINAL_STATES, type A2aTaskStore } from './a2a-task-store.js';

/** The agent's message that ends task `task` with `outcome`. */
export function endingMessage(task: { id: string; contextId: string }, turnId: string, text: string): Message {
  return {
    messageId: `${turnId}-reply`,
    contextId: task.contextId,
    taskId: task.id,
    role: Role.ROLE_AGENT,
    parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export class A2aTaskEndings {
  private readonly waiting = new Map<string, (outcome: TurnOutcome) => void>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly host: A2aHost,
    private readonly store: A2aTaskStore,
    private readonly now: () => number,
    private readonly log: VigilLogger,
  ) {
    this.unsubscribe = host.onEnding((outcome) => this.settle(outcome));
  }

  /** Resolves with the ending of `turnId`, once; call it before the turn is admitted. */
  expect(turnId: string): Promise<TurnOutcome> {
    return new Promise((resolve) => this.waiting.set(turnId, resolve));
  }

  /** Stops waiting for `turnId` (its admission failed: it will never end). */
  forget(turnId: string): void {
    this.waiting.delete(turnId);
  }

  /** Follows every open task to its end: those already ended are ended now, the others when their turns end. */
  async recover(): Promise<void> {
    for (const record of await this.store.open()) {
      const ended = this.expect(record.turnId);
      runDetached(
        ended.then((outcome) => this.end(record.task.id, outcome)),
        this.log,
        'ending a recovered A2A task',
      );
      const outcome = await this.host.ending(record.turnId, record.seq);
      if (outcome !== undefined) this.settle(outcome);
    }
  }

  close(): void {
    this.unsubscribe();
    this.waiting.clear();
  }

  private settle(outcome: TurnOutcome): void {
    const resolve = this.waiting.get(outcome.turnId);
    if (resolve === undefined) return;
    this.waiting.delete(outcome.turnId);
    resolve(outcome);
  }

  /** Writes the task's ending into its record (once: an ended task is left as it is). */
  async end(taskId: string, outcome: TurnOutcome): Promise<void> {
    const record = await this.store.record(taskId);
    if (record === undefined || TERMINAL_STATES.has(record.task.status?.state ?? '')) return;
    const task = Task.fromJSON(record.task);
    task.status = {
      state: outcome.answered ? TaskState.TASK_STATE_COMPLETED : TaskState.TASK_STATE_FAILED,
      message: endingMessage(task, outcome.turnId, outcome.text),
      timestamp: new Date(this.now()).toISOString(),
    };
    await this.store.put({ ...record, task: Task.toJSON(task) as typeof record.task });
  }
}
