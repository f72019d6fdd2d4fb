/**
 * `checkpoint.restore`: swaps the running state for a checkpoint at a beat boundary. Messages logged after it are
 * archived, not lost; turns answered after it stay answered; turns opened after it end as TURN_CANCELLED; and the
 * restored state is checkpointed in the same sync batch as all of that, so a crash at any moment leaves the agent
 * either as it was or wholly restored, never a turn answered in the archive open again in an older checkpoint.
 */
import { VigilError } from '../../errors.js';
import { checkpointOf } from '../../heartbeat/checkpoint-snapshot.js';
import type { CognitiveCheckpoint } from '../../protocol/checkpoint-format.schema.js';
import type { CheckpointRestored } from '../../protocol/checkpoints.schema.js';
import type { ConversationMessage } from '../../protocol/conversation.schema.js';
import type { TurnState } from '../../heartbeat/heartbeat.types.js';
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
      throw new VigilError(
        'CHECKPOINT_CONFIRMATION_REQUIRED',
        `Restoring checkpoint ${id} replaces the running state; call again with confirm: true.`,
        {
          data: { id, beatCount: checkpoint.beatCount, createdAt: iso(checkpoint.createdAt) },
        },
      );
    }
    // Checked and set before any await, so two concurrent restores can never both pass.
    if (this.restoring) {
      throw new VigilError(
        'CHECKPOINT_RESTORE_BUSY',
        `A restore is already running; checkpoint ${id} was not restored.`,
      );
    }
    this.restoring = true;
    try {
      const checkpoint = await core.parts.store.load(id);
      return await core.exclusive.run(async () => {
        await core.pause();
        try {
          return await this.swapTo(checkpoint);
        } finally {
          core.resume();
        }
      });
    } finally {
      this.restoring = false;
    }
  }

  /**
   * At a beat boundary, with sends held off: everything the restore writes (the archive, the cancelled turns' endings,
   * the summary's rollback and the restored state's checkpoint) goes to disk in one sync batch, and only then does
   * the heartbeat take the restored state. A failed write changes nothing.
   */
  private async swapTo(checkpoint: CognitiveCheckpoint): Promise<CheckpointRestored> {
    const { core } = this;
    const { conversation, swarmResults, clock, bus, checkpoints, ledger, deps, summary } = core.parts;
    const { watermark, summaryThroughSeq } = checkpoint.conversation;
    const later = await conversation.readAfter(watermark);
    const archivedEndings = await conversation.endedInArchives(
      new Set(checkpoint.conversation.pending.map((open) => open.turnId)),
    );
    const plan = planRestore(checkpoint, later, core.context().turns.pending, archivedEndings);
    const now = clock.now();
    const reason = `The agent was restored to checkpoint ${checkpoint.id}, taken before this message; send it again if it still matters.`;
    const endings = deps.closer.unansweredInBatch(plan.cancelled, 'TURN_CANCELLED', reason, now);
    const archive = await conversation.prepareArchive(watermark, `restore-${checkpoint.id}-${now}`, endings.messages);
    // The summary goes back with the log: none of what is archived may stay folded into it.
    const rollBack = await summary.prepareRollBack(Math.min(summaryThroughSeq ?? watermark, watermark), checkpoint.id);
    const inFlight = checkpoint.actors.swarms.tasks
      .filter((t) => t.status === 'queued' || t.status === 'running')
      .map((t) => t.id);
    const finishedTasks = await swarmResults.find(inFlight);
    const budget = await readBudgetBasis(ledger, this.budget.settings(), now);
    const base = { ...checkpoint, conversation: { ...checkpoint.conversation, pending: plan.reopened } };
    const seed = seedFromCheckpoint(base, now, { messagesAfter: [], finishedTasks, budget, turn: null });
    const restored = checkpointOf(seed, deps, {
      id: checkpoints.newId(),
      phase: 'sleep',
      watermark: archive.watermarkAfter,
      summaryWatermark: rollBack.current?.throughSeq ?? 0,
    });
    try {
      await checkpoints.saveNow(restored, {
        ops: () => [...archive.ops, ...rollBack.ops, ...endings.journalOps()],
        onStored: () => {
          archive.committed();
          endings.publish();
        },
      });
    } catch (err) {
      archive.abandoned();
      endings.withdraw();
      throw err;
    }
    await summary.adopt(rollBack.current);
    // Money is never rolled back: the restored state keeps the live budget (its day, spend, top-ups, sleep), taken as
    // it is replaced, so a charge that landed during the writes above, or a midnight they waited through, counts.
    core.actor.send({ type: 'APPLY_SEED', seed: { ...seed, actors: { ...seed.actors, budget: this.budget.state() } } });
    bus.emit('checkpoint.restored', {
      checkpointId: checkpoint.id,
      beatsRecovered: checkpoint.beatCount,
      ageSeconds: Math.max(0, (clock.now() - checkpoint.createdAt) / 1000),
    });
    // Long-term memory is not rolled back: memories made after the checkpoint are kept, as later messages are.
    const laterMemories = await core.parts.memory.countAfter(checkpoint.longTermMemory?.watermark ?? 0);
    core.parts.log.info(
      { checkpointId: checkpoint.id, laterMemories },
      'restored; long-term memories made after the checkpoint are kept',
    );
    return { restored: checkpoint.id, beatCount: checkpoint.beatCount };
  }
}

/** Which turns a restore of `checkpoint` reopens, and which of those open now it cancels. */
export interface RestorePlan {
  /** The checkpoint's open turns not answered after it: open again once restored. */
  reopened: TurnState['pending'];
  /** Turns open now that the restored state does not hold open: they end as TURN_CANCELLED. */
  cancelled: string[];
}

/**
 * The restore's turns, from the checkpoint, the log entries after its watermark, the turns open now, and the
 * checkpoint's open turns that ended in an entry an earlier restore archived.
 */
export function planRestore(
  checkpoint: CognitiveCheckpoint,
  later: readonly ConversationMessage[],
  openNow: TurnState['pending'],
  endedInArchives: ReadonlySet<string> = new Set(),
): RestorePlan {
  const endedLater = new Set([...endedInArchives, ...later.filter((m) => m.role === 'assistant').map((m) => m.turnId)]);
  const reopened = checkpoint.conversation.pending.filter((open) => !endedLater.has(open.turnId));
  const reopenedIds = new Set(reopened.map((open) => open.turnId));
  return { reopened, cancelled: openNow.filter((open) => !reopenedIds.has(open.turnId)).map((open) => open.turnId) };
}
