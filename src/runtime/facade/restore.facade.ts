/**
 * `checkpoint.restore`: swaps the running state for a checkpoint at a beat boundary. Messages logged after it are
 * archived, not lost; turns answered after it stay answered; turns opened after it end as TURN_CANCELLED; and the
 * restored state is checkpointed at once, so a crash cannot bring back what it replaced.
 */
import { VigilError } from '../../errors.js';
import { snapshotCheckpoint } from '../../heartbeat/checkpoint-snapshot.js';
import type { CheckpointRestored } from '../../protocol/checkpoints.schema.js';
import { readBudgetBasis } from '../budget-basis.js';
import { seedFromCheckpoint } from '../heartbeat-seed.js';
import { iso, type RuntimeCore } from '../runtime-core.js';
import type { BudgetFacade } from './budget.facade.js';

/** Restores, one at a time. */
export class RestoreFacade {
  private restoring = false;

  constructor(
    private readonly core: RuntimeCore,
    private readonly budget: BudgetFacade,
  ) {}

  /** Without `confirm`, CHECKPOINT_CONFIRMATION_REQUIRED describing the checkpoint; with it, the restore. */
  async restore(id: string, options: { confirm?: boolean } = {}): Promise<CheckpointRestored> {
    const { core } = this;
    core.assertRunning();
    if (options.confirm !== true) {
      const checkpoint = await core.parts.store.load(id);
      throw new VigilError('CHECKPOINT_CONFIRMATION_REQUIRED', `Restoring checkpoint ${id} replaces the running state; call again with confirm: true.`, {
        data: { id, beatCount: checkpoint.beatCount, createdAt: iso(checkpoint.createdAt) },
      });
    }
    // Checked and set before any await, so two concurrent restores can never both pass.
    if (this.restoring) {
      throw new VigilError('CHECKPOINT_RESTORE_BUSY', `A restore is already running; checkpoint ${id} was not restored.`);
    }
    this.restoring = true;
    try {
      const checkpoint = await core.parts.store.load(id);
      return await core.exclusive.run(async () => {
        await core.pause();
        try {
          const { conversation, swarmResults, clock, bus, checkpoints, ledger, deps } = core.parts;
          const later = await conversation.readAfter(checkpoint.conversation.watermark);
          const endedLater = new Set(later.filter((m) => m.role === 'assistant').map((m) => m.turnId));
          const reopened = checkpoint.conversation.pending.filter((open) => !endedLater.has(open.turnId));
          const reopenedIds = new Set(reopened.map((open) => open.turnId));
          const cancelled = core.context().turns.pending.filter((open) => !reopenedIds.has(open.turnId));
          await conversation.archiveAfter(checkpoint.conversation.watermark, `restore-${checkpoint.id}-${clock.now()}`);
          // The summary goes back with the log: none of what was just archived may stay folded into it.
          const { summaryThroughSeq, watermark } = checkpoint.conversation;
          await core.parts.summary.rollBackTo(Math.min(summaryThroughSeq ?? watermark, watermark), checkpoint.id);
          for (const open of cancelled) {
            const reason = `The agent was restored to checkpoint ${checkpoint.id}, taken before this message; send it again if it still matters.`;
            await deps.closer.unanswered(open.turnId, 'TURN_CANCELLED', reason, clock.now());
          }
          const inFlight = checkpoint.actors.swarms.tasks.filter((t) => t.status === 'queued' || t.status === 'running').map((t) => t.id);
          const finishedTasks = await swarmResults.find(inFlight);
          const now = clock.now();
          const budget = await readBudgetBasis(ledger, this.budget.settings(), now);
          const base = { ...checkpoint, conversation: { ...checkpoint.conversation, pending: reopened } };
          core.actor.send({ type: 'APPLY_SEED', seed: seedFromCheckpoint(base, now, { messagesAfter: [], finishedTasks, budget, turn: null }) });
          await checkpoints.saveNow(snapshotCheckpoint(core.context(), checkpoints.newId(), 'sleep'));
          bus.emit('checkpoint.restored', {
            checkpointId: checkpoint.id,
            beatsRecovered: checkpoint.beatCount,
            ageSeconds: Math.max(0, (clock.now() - checkpoint.createdAt) / 1000),
          });
          // Long-term memory is not rolled back: memories made after the checkpoint are kept, as later messages are.
          const laterMemories = await core.parts.memory.countAfter(checkpoint.longTermMemory?.watermark ?? 0);
          core.parts.log.info({ checkpointId: checkpoint.id, laterMemories }, 'restored; long-term memories made after the checkpoint are kept');
          return { restored: checkpoint.id, beatCount: checkpoint.beatCount };
        } finally {
          core.resume();
        }
      });
    } finally {
      this.restoring = false;
    }
  }
}
