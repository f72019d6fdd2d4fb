/** The runtime's core: the heartbeat actor with its parts, the beat-boundary pause, and the start/stop lifecycle every facade area shares. */
import { createActor, type Actor } from 'xstate';
import { VigilError } from '../errors.js';
import { snapshotCheckpoint } from '../heartbeat/checkpoint-snapshot.js';
import { emitBudgetUpdated } from '../heartbeat/cost-recorder.js';
import { heartbeatMachine } from '../heartbeat/heartbeat.machine.js';
import type { HeartbeatContext } from '../heartbeat/heartbeat.types.js';
import { createMutex } from '../shared/mutex.js';
import { embeddingSpendOf } from './embedding-budget.js';
import type { RuntimeParts } from './runtime-parts.js';

/** The heartbeat actor. */
export type HeartbeatActor = Actor<typeof heartbeatMachine>;

/** An ISO-8601 time on the wire from epoch ms. */
export const iso = (ms: number): string => new Date(ms).toISOString();

/** The heartbeat and its parts, with the guards and the pause the facade areas build on. */
export class RuntimeCore {
  readonly parts: RuntimeParts;
  readonly actor: HeartbeatActor;
  /** Serialises what must not interleave: sends, restores and the stop. */
  readonly exclusive = createMutex();
  readonly startedAt: number;
  private started = false;
  private stoppedFlag = false;

  constructor(parts: RuntimeParts) {
    this.parts = parts;
    this.startedAt = parts.clock.now();
    this.actor = createActor(heartbeatMachine, { input: { deps: parts.deps, seed: parts.seed }, clock: parts.clock });
    // The parts built before the heartbeat read it from now on: events carry its beat, the tool caller its open turns.
    parts.bus.useBeatSource(() => this.context().beatCount);
    parts.openTurns.follow(() => this.context().turns);
  }

  /** True once `stop` was called. */
  get stopped(): boolean {
    return this.stoppedFlag;
  }

  /** The heartbeat's context now. */
  context(): HeartbeatContext {
    return this.actor.getSnapshot().context;
  }

  /** Throws RUNTIME_STOPPED once the runtime is stopping. */
  assertRunning(): void {
    if (this.stoppedFlag) throw new VigilError('RUNTIME_STOPPED', 'The runtime is stopping and takes no more work.');
  }

  /** Starts beating; emits `checkpoint.restored` first when resuming from a checkpoint. */
  start(): void {
    const { restored, bus, clock, seed } = this.parts;
    if (restored !== null) {
      bus.emit('checkpoint.restored', {
        checkpointId: restored.id,
        beatsRecovered: restored.beatCount,
        ageSeconds: Math.max(0, (clock.now() - restored.createdAt) / 1000),
      });
    }
    this.started = true;
    // In the background: a slow or broken server shows as mcp.server_down, it never delays the first beat.
    this.parts.tools.start();
    bus.emit('heartbeat.started', { restoredFrom: seed.restoredFrom, beatCount: seed.beatCount });
    // Where the money stands at start, for subscribers and metrics that have seen no think yet.
    emitBudgetUpdated(bus, seed.actors.budget);
    this.actor.start();
    // Vectors are made only now: the budget they are charged to is the heartbeat's, and the boot is not held up.
    const semantic = this.parts.semantic;
    if (semantic !== undefined) {
      const spend = embeddingSpendOf(this, semantic.model, semantic.pricePerMTok);
      for (const index of semantic.indexes) index.startFilling(spend);
    }
  }

  /** Resolves once the heartbeat rests at a beat boundary (state `paused`); `resume` lets it go on. */
  pause(): Promise<void> {
    return new Promise((resolve) => {
      if (this.actor.getSnapshot().matches('paused')) {
        resolve();
        return;
      }
      const subscription = this.actor.subscribe((snapshot) => {
        if (!snapshot.matches('paused')) return;
        subscription.unsubscribe();
        resolve();
      });
      this.actor.send({ type: 'PAUSE' });
    });
  }

  /** Lets a paused heartbeat beat again (back through boot, where the budget decides awake or asleep). */
  resume(): void {
    this.actor.send({ type: 'RESUME' });
  }

  /** Stops at a beat boundary, writes a final checkpoint, and closes the store. Safe to call twice. */
  async stop(reason: string): Promise<void> {
    if (this.stoppedFlag) return;
    this.stoppedFlag = true;
    // Never started: there is no beat to finish and nothing new to checkpoint, only what it owns to close.
    if (!this.started) {
      await this.parts.close();
      return;
    }
    await this.exclusive.run(async () => {
      await this.pause();
      const { checkpoints, bus, log } = this.parts;
      const context = this.context();
      try {
        await checkpoints.flush();
        await checkpoints.saveNow(snapshotCheckpoint(context, checkpoints.newId(), 'sleep'));
      } catch (err) {
        log.error({ err }, 'final checkpoint failed');
      }
      bus.emit('heartbeat.stopped', { beatCount: context.beatCount, reason });
      this.actor.stop();
      await checkpoints.flush();
    });
    await this.parts.close();
  }
}
