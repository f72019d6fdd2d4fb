/**
 * Retention: once an hour (by the injected clock, on a beat, off the beat's path) every append-only record is pruned
 * to what its policy keeps, so a data dir grows with what the agent chose to remember, not with how long it ran.
 */
import type { Subscription } from 'rxjs';
import { dayKeyIn } from '../actors/budget/budget-calendar.js';
import { describeError } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { Clock } from '../shared/clock.js';
import type { VigilLogger } from '../shared/logger.js';
import { runDetached } from '../shared/run-detached.js';
import type { BudgetLedger } from '../subsystems/budget/budget-ledger.js';
import type { CheckpointStore } from '../subsystems/checkpoint/checkpoint.store.js';
import type { ConversationLog } from '../subsystems/conversation/conversation-log.js';
import { compactVigilDb, type VigilDb } from '../subsystems/store/vigil-db.js';
import type { SwarmResultLog } from '../subsystems/swarm-results/swarm-result-log.js';
import type { ToolCallLog } from '../subsystems/tools/tool-call-log.js';

const DAY_MS = 86_400_000;
/** How often a retention pass runs. */
export const RETENTION_INTERVAL_MS = 3_600_000;
/** Day totals of the budget ledger are kept this long (a year and a bit, for yearly spend questions). */
export const LEDGER_TOTAL_DAYS = 400;
/** A swarm result is kept this long past the oldest stored checkpoint: a checkpoint taken in the same beat as it finished may still show its task running. */
export const SWARM_RESULT_MARGIN_MS = 3_600_000;
// A pass that deleted this many records compacts LevelDB, so the space is given back now rather than someday.
const COMPACT_AFTER_DELETES = 1000;

/** What each record keeps (from the configuration). */
export interface RetentionPolicy {
  /** VIGIL_CONVERSATION_MAX_MESSAGES: the newest N live messages (older ones are the rolling summary's). */
  conversationMaxMessages: number;
  /** VIGIL_LEDGER_CHARGE_DAYS: days of per-think charges; older days keep only their totals. */
  ledgerChargeDays: number;
  /** VIGIL_TOOL_CALL_RETENTION_DAYS: days an ended tool call's record is kept. */
  toolCallRetentionDays: number;
  /** VIGIL_TIMEZONE: whose days the ledger counts. */
  timezone: string;
}

/** The stores a pass prunes, and the checkpoint store that says what a restore could still need. */
export interface RetentionStores {
  db: VigilDb;
  checkpoints: CheckpointStore;
  conversation: ConversationLog;
  ledger: BudgetLedger;
  swarmResults: SwarmResultLog;
  toolCalls: ToolCallLog;
}

/** How many records one pass deleted, per store. */
export interface RetentionReport {
  conversation: number;
  ledger: number;
  swarmResults: number;
  toolCalls: number;
  compacted: boolean;
}

/** Runs retention passes: on a beat at most once per `RETENTION_INTERVAL_MS`, or when asked (`runOnce`). */
export class RetentionKeeper {
  private subscription: Subscription | undefined;
  private lastRunAt = Number.NEGATIVE_INFINITY;
  private running: Promise<RetentionReport | null> | null = null;

  constructor(
    private readonly stores: RetentionStores,
    private readonly policy: RetentionPolicy,
    private readonly clock: Clock,
    private readonly log: VigilLogger,
  ) {}

  /** Runs a pass on the first beat and then on the first beat an interval after the last pass began. */
  attach(bus: EventBus): void {
    this.subscription = bus.events$.subscribe((event) => {
      if (event.type !== 'heartbeat.beat' || this.running !== null) return;
      if (this.clock.now() - this.lastRunAt < RETENTION_INTERVAL_MS) return;
      runDetached(this.runOnce(), this.log, 'a retention pass');
    });
  }

  /** Stops starting passes and waits for one under way. */
  async detach(): Promise<void> {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    await this.running;
  }

  /** One pass now (or the one already under way); null when it failed (logged at warn; the next interval retries). */
  runOnce(): Promise<RetentionReport | null> {
    if (this.running !== null) return this.running;
    this.lastRunAt = this.clock.now();
    this.running = this.pass(this.lastRunAt).then(
      (report) => {
        this.running = null;
        const deleted = report.conversation + report.ledger + report.swarmResults + report.toolCalls;
        if (deleted > 0) this.log.info({ ...report }, 'retention: old records pruned');
        return report;
      },
      (err: unknown) => {
        this.running = null;
        this.log.warn({ err: describeError(err) }, 'retention pass failed; it is tried again in an hour');
        return null;
      },
    );
    return this.running;
  }

  private async pass(now: number): Promise<RetentionReport> {
    const { checkpoints, conversation, ledger, swarmResults, toolCalls } = this.stores;
    const stored = await checkpoints.list();
    const oldestCheckpointAt = Math.min(now, ...stored.map((meta) => meta.createdAt));
    const report: RetentionReport = { conversation: 0, ledger: 0, swarmResults: 0, toolCalls: 0, compacted: false };
    const notAbove = await this.replayFloor(stored.map((meta) => meta.id));
    // No readable checkpoint: a boot would cold-start and replay the whole log, so none of it may go.
    if (notAbove !== null)
      report.conversation = await conversation.pruneOldest(this.policy.conversationMaxMessages, notAbove);
    report.ledger = await ledger.compact(
      dayKeyIn(this.policy.timezone, now - this.policy.ledgerChargeDays * DAY_MS),
      dayKeyIn(this.policy.timezone, now - LEDGER_TOTAL_DAYS * DAY_MS),
    );
    report.swarmResults = await swarmResults.forgetFinishedBefore(oldestCheckpointAt - SWARM_RESULT_MARGIN_MS);
    report.toolCalls = await toolCalls.pruneResolvedBefore(now - this.policy.toolCallRetentionDays * DAY_MS);
    if (report.conversation + report.ledger + report.swarmResults + report.toolCalls >= COMPACT_AFTER_DELETES) {
      await compactVigilDb(this.stores.db);
      report.compacted = true;
    }
    return report;
  }

  /** The lowest conversation watermark of the stored checkpoints that load (a restore replays after it), or null if none loads. */
  private async replayFloor(ids: readonly string[]): Promise<number | null> {
    let floor: number | null = null;
    for (const id of ids) {
      const watermark = await this.stores.checkpoints.load(id).then(
        (cp) => cp.conversation.watermark,
        // A checkpoint that does not load can never be restored: it needs nothing kept.
        () => null,
      );
      if (watermark !== null) floor = floor === null ? watermark : Math.min(floor, watermark);
    }
    return floor;
  }
}
