/** The checkpoint manager: periodic and requested checkpoints saved off the beat, and the newest valid one at boot. */
import { describeError, VigilError } from '../../errors.js';
import type { EventBus } from '../../events/event-bus.js';
import type { CognitiveCheckpoint } from '../../protocol/checkpoint-format.schema.js';
import type { VigilBatchOp } from '../store/vigil-db.js';
import type { CheckpointStore } from './checkpoint.store.js';

/** Checkpoint settings (CONTRACT §3). */
export interface CheckpointPolicy {
  enabled: boolean;
  intervalBeats: number;
  maxCount: number;
}

/** What a stored checkpoint reports back. */
export interface SavedCheckpoint {
  id: string;
  beatCount: number;
  sizeBytes: number;
}

interface PendingRequest {
  resolve: (saved: SavedCheckpoint) => void;
  reject: (err: unknown) => void;
}

/** What else a checkpoint's batch carries (a restore's archive and turn endings), and what follows its write. */
export interface SaveAlongside {
  /** Operations for the same sync batch; called once, just before the write. */
  ops: () => readonly VigilBatchOp[];
  /** Runs once the batch is durable, before `checkpoint.created` is announced (so events it publishes keep seq order). */
  onStored: () => void;
}

/** Decides when to checkpoint and saves in the background, one save at a time, in order. */
export class CheckpointManager {
  private requests: PendingRequest[] = [];
  private chain: Promise<void> = Promise.resolve();
  private inFlight = 0;

  constructor(
    private readonly store: CheckpointStore,
    private readonly bus: EventBus,
    private readonly policy: CheckpointPolicy,
  ) {}

  /** True when a checkpoint is requested, or periodic checkpoints are on and `beatCount` is on the interval. */
  isDue(beatCount: number): boolean {
    if (this.requests.length > 0) return true;
    return this.policy.enabled && beatCount > 0 && beatCount % this.policy.intervalBeats === 0;
  }

  /** A fresh, time-sortable checkpoint id. */
  newId(): string {
    return this.store.newId();
  }

  /** Asks for a checkpoint at the next beat boundary; resolves once it is stored. */
  request(): Promise<SavedCheckpoint> {
    return new Promise((resolve, reject) => this.requests.push({ resolve, reject }));
  }

  /** Saves `checkpoint` after any save already running; the caller (the beat) does not wait. */
  saveInBackground(checkpoint: CognitiveCheckpoint): void {
    const waiting = this.requests;
    this.requests = [];
    this.enqueue(checkpoint).then(
      (saved) => waiting.forEach((request) => request.resolve(saved)),
      (err: unknown) => waiting.forEach((request) => request.reject(err)),
    );
  }

  /**
   * Saves `checkpoint` after any save already running, and waits for it (the final checkpoint at shutdown); with
   * `alongside`, other writes go into the checkpoint's own batch, so a crash keeps both or neither.
   */
  saveNow(checkpoint: CognitiveCheckpoint, alongside?: SaveAlongside): Promise<SavedCheckpoint> {
    return this.enqueue(checkpoint, alongside);
  }

  /** Resolves once every save started so far has finished (stored or failed). */
  async flush(): Promise<void> {
    await this.chain;
  }

  /** Number of saves queued or running. */
  get pendingSaves(): number {
    return this.inFlight;
  }

  /** The newest checkpoint that decodes and validates; each bad one on the way is evented and logged. */
  async loadNewestValid(): Promise<CognitiveCheckpoint | null> {
    return this.store.loadNewestValid((checkpointId, reason) => {
      this.bus.emit('checkpoint.corrupt', { checkpointId, reason });
    });
  }

  private enqueue(checkpoint: CognitiveCheckpoint, alongside?: SaveAlongside): Promise<SavedCheckpoint> {
    this.inFlight += 1;
    const saved = this.chain.then(() => this.save(checkpoint, alongside));
    // The chain only orders saves; a failed save must not stop the next one.
    this.chain = saved
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.inFlight -= 1;
      });
    return saved;
  }

  private async save(checkpoint: CognitiveCheckpoint, alongside?: SaveAlongside): Promise<SavedCheckpoint> {
    const started = performance.now();
    try {
      const { id, sizeBytes } = await this.store.save(checkpoint, this.policy.maxCount, alongside?.ops);
      alongside?.onStored();
      const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
      this.bus.emit('checkpoint.created', { checkpointId: id, beatCount: checkpoint.beatCount, sizeBytes, durationMs });
      return { id, beatCount: checkpoint.beatCount, sizeBytes };
    } catch (err) {
      const reason = describeError(err);
      this.bus.emit('checkpoint.failed', { reason });
      throw new VigilError('CHECKPOINT_SAVE_FAILED', `Saving checkpoint ${checkpoint.id} failed: ${reason}`, {
        cause: err,
      });
    }
  }
}
