/** Boot's task step: reads the task, result and tool call logs, recovers the seed's tasks, records and announces what a crash cut off. */
import type { EventBus } from '../events/event-bus.js';
import type { HeartbeatSeed } from '../heartbeat/heartbeat.types.js';
import type { SwarmResultLog } from '../subsystems/swarm-results/swarm-result-log.js';
import type { SwarmTaskLog } from '../subsystems/swarm-results/swarm-task-log.js';
import type { ToolCallLog } from '../subsystems/tools/tool-call-log.js';
import { recoverTasks } from './task-recovery.js';

/** What boot hands over. */
export interface BootTasksInput {
  seed: HeartbeatSeed;
  swarmTasks: SwarmTaskLog;
  swarmResults: SwarmResultLog;
  toolCallLog: ToolCallLog;
  bus: EventBus;
  now: number;
}

/**
 * The seed with its tasks recovered. A failure is recorded in the result log before its `swarm.task_interrupted`
 * is emitted, so the next boot finds it settled and says nothing more about it.
 */
export async function recoverBootTasks(input: BootTasksInput): Promise<HeartbeatSeed> {
  const { swarmTasks, swarmResults, toolCallLog, bus, now } = input;
  const taskLog = await swarmTasks.all();
  const recovery = recoverTasks({
    seed: input.seed,
    taskLog,
    results: await swarmResults.find(taskLog.map((record) => record.id)),
    toolCalls: await toolCallLog.all(),
    now,
  });
  for (const task of recovery.interrupted) {
    if (task.outcome === 'failed')
      await swarmResults.record({ taskId: task.taskId, status: 'failed', text: task.text!, finishedAt: now });
  }
  for (const { taskId, turnId, outcome, callIds } of recovery.interrupted)
    bus.emit('swarm.task_interrupted', { taskId, turnId, outcome, callIds });
  return recovery.seed;
}
