/** The boot's seed phase: the newest valid checkpoint (or a cold start), today's money from the ledger, and the tasks a crash cut off. */
import type { HeartbeatSeed } from '../heartbeat/heartbeat.types.js';
import type { CognitiveCheckpoint } from '../protocol/checkpoint-format.schema.js';
import { usdToMicroUsd } from '../subsystems/thinking/pricing.js';
import type { BootBase } from './boot-phase.js';
import type { EventWiring, Records } from './boot-storage.js';
import { recoverBootTasks } from './boot-tasks.js';
import { readBudgetBasis } from './budget-basis.js';
import { coldSeed, seedFromCheckpoint } from './heartbeat-seed.js';

/** Where the heartbeat starts from. */
export interface BootSeed {
  seed: HeartbeatSeed;
  /** The checkpoint the seed came from (null: a cold start), for `checkpoint.restored` at start. */
  restored: CognitiveCheckpoint | null;
  /** VIGIL_DAILY_BUDGET_USD in micro-dollars. */
  configuredCapMicroUsd: number;
}

/** Reads the seed; acquires nothing (it reads the records and emits on the bus). */
export async function readSeed({ config, clock }: BootBase, records: Records, events: EventWiring): Promise<BootSeed> {
  const { checkpoints, conversation, swarmResults, swarmTasks, ledger, turnTimers, toolCallLog } = records;
  const configuredCapMicroUsd = usdToMicroUsd(config.dailyBudgetUsd);
  const restored = await checkpoints.loadNewestValid();
  const now = clock.now();
  // The ledger, not the checkpoint, says what was spent today: a crash loop can never reset the budget.
  const budget = await readBudgetBasis(ledger, { timezone: config.timezone, configuredCapMicroUsd }, now);
  const turn = await turnTimers.read();
  const bootSeed =
    restored === null
      ? coldSeed({
          now,
          beatMs: config.beatMs,
          wmCapacity: config.wmCapacity,
          swarmConcurrency: config.swarmConcurrency,
          budget,
          turn,
          // No checkpoint: a message acknowledged before the first one must still be answered.
          messages: await conversation.readAfter(0),
        })
      : seedFromCheckpoint(restored, now, {
          messagesAfter: await conversation.readAfter(restored.conversation.watermark),
          finishedTasks: await swarmResults.find(inFlightTaskIds(restored)),
          budget,
          turn,
        });
  // No task is lost or run again blindly: tasks spawned after the checkpoint come back; one cut off after a
  // non-idempotent tool call is failed (recorded first, then announced once).
  const seed = await recoverBootTasks({ seed: bootSeed, swarmTasks, swarmResults, toolCallLog, bus: events.bus, now });
  return { seed, restored, configuredCapMicroUsd };
}

/** Ids of the tasks a checkpoint saw queued or running: they may have finished after it. */
export function inFlightTaskIds(checkpoint: CognitiveCheckpoint): string[] {
  return checkpoint.actors.swarms.tasks
    .filter((task) => task.status === 'queued' || task.status === 'running')
    .map((task) => task.id);
}
