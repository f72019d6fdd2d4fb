/** The facade's tasks area: `tasks.list` and `tasks.cancel`; a cancel is recorded durably before it counts. */
import { findTask, isFinishedTask } from '../../actors/swarms/swarms.reducer.js';
import type { SwarmTask } from '../../actors/swarms/swarms.schema.js';
import { VigilError } from '../../errors.js';
import { taskLimits } from '../../heartbeat/task-spawn.js';
import type { TaskView } from '../../protocol/tasks.schema.js';
import { iso, type RuntimeCore } from '../runtime-core.js';

/** Sub-agent tasks as the facade offers them. */
export class TasksFacade {
  constructor(private readonly core: RuntimeCore) {}

  /** `tasks.list`: every task the swarms actor holds, oldest first. */
  list(): TaskView[] {
    return this.core
      .context()
      .refs.swarms.getSnapshot()
      .context.tasks.map((task) => this.view(task));
  }

  /**
   * `tasks.cancel`: TASK_NOT_FOUND for an unknown id, TASK_FINISHED for a task that has its outcome (also when it
   * finished while the cancel was being recorded). Otherwise the outcome `cancelled` is synced first, then the
   * heartbeat drops the task or stops it (aborting its call in flight); its turn hears "cancelled" in its next think.
   */
  async cancel(id: string): Promise<TaskView> {
    this.core.assertRunning();
    const task = this.find(id);
    if (isFinishedTask(task)) throw finished(task);
    const { swarmResults, clock } = this.core.parts;
    const reason = 'Cancelled by an operator (tasks.cancel).';
    const record = { taskId: id, status: 'cancelled' as const, text: reason, finishedAt: clock.now() };
    const outcome = await swarmResults.recordFirst(record);
    if (outcome !== record) throw finished({ ...task, status: outcome.status });
    this.core.actor.send({ type: 'TASK_CANCEL', id, reason });
    return this.view(this.find(id));
  }

  private find(id: string): SwarmTask {
    const task = findTask(this.core.context().refs.swarms.getSnapshot().context, id);
    if (task === undefined)
      throw new VigilError('TASK_NOT_FOUND', `No task with id ${JSON.stringify(id)}.`, { data: { id } });
    return task;
  }

  private view(task: SwarmTask): TaskView {
    const limits = taskLimits(task, this.core.parts.deps.options);
    return {
      id: task.id,
      status: task.status,
      prompt: task.prompt,
      turnId: task.turnId,
      tools: limits.tools,
      createdAt: iso(task.createdAt),
      ...(task.startedAt === undefined ? {} : { startedAt: iso(task.startedAt) }),
      ...(task.finishedAt === undefined ? {} : { finishedAt: iso(task.finishedAt) }),
      ...(task.deadlineAt === undefined || task.status !== 'running' ? {} : { deadlineAt: iso(task.deadlineAt) }),
      deadlineSeconds: limits.deadlineMs / 1000,
      costUsd: (task.costMicroUsd ?? 0) / 1_000_000,
      maxCostUsd: limits.maxCostMicroUsd / 1_000_000,
      ...(task.result === undefined ? {} : { result: task.result }),
      ...(task.error === undefined ? {} : { error: task.error }),
    };
  }
}

function finished(task: Pick<SwarmTask, 'id' | 'status'>): VigilError {
  return new VigilError(
    'TASK_FINISHED',
    `Task ${task.id} already finished (${task.status}): there is nothing to cancel.`,
    {
      data: { id: task.id, status: task.status },
    },
  );
}
