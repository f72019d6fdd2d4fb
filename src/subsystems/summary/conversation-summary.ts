/**
 * The rolling summary's keeper: the current version in memory, the entries after its watermark for a think's
 * prompt, and updates run in the background (one at a time, never holding up a reply), each charged to the ledger
 * before it is stored.
 */
import { describeError } from '../../errors.js';
import type { ConversationSummary } from '../../protocol/conversation-summary.schema.js';
import type { ConversationMessage } from '../../protocol/conversation.schema.js';
import type { Clock } from '../../shared/clock.js';
import type { VigilLogger } from '../../shared/logger.js';
import type { ConversationLog } from '../conversation/conversation-log.js';
import type { VigilBatchOp } from '../store/vigil-db.js';
import type { SummaryRequest, SummaryResult } from '../thinking/summary-request.js';
import { TokenCalibration } from '../thinking/token-calibration.js';
import { maxSummaryTokens, planSummaryUpdate } from './summary-policy.js';
import type { SummaryStore } from './summary-store.js';

/** Produces the new summary (a model call, or the extractive one). */
export type Summarize = (request: SummaryRequest, signal: AbortSignal) => Promise<SummaryResult>;
/** Records what an update cost (ledger first); rejects when it cannot, and the update is then not stored. */
export type ChargeSummary = (result: SummaryResult) => Promise<void>;

/** Recent entries kept in memory for prompts: more than any prompt's bound can show (20 tokens an entry at least). */
export const RECENT_KEPT = 1000;

/** Chunks one trigger folds in at most: a long backlog is caught up over several thinks, not in one burst. */
const MAX_CHUNKS_PER_UPDATE = 4;

/** Log entries read after a summary watermark: `messages` are every live entry with `after < seq <= through`. */
interface UnsummarisedEntries {
  after: number;
  through: number;
  messages: ConversationMessage[];
}

/** What the keeper needs. */
export interface SummaryKeeperOptions {
  store: SummaryStore;
  conversation: ConversationLog;
  clock: Clock;
  log: VigilLogger;
  contextTokens: number;
  summarize: Summarize;
}

/** Keeps the summary; `open` before use, `stop` before the database closes. */
export class ConversationSummaryKeeper {
  private current: ConversationSummary | null = null;
  /** The newest log entries, oldest first (RECENT_KEPT to twice that). */
  private tail: ConversationMessage[] = [];
  private running: Promise<void> | null = null;
  /** The entries after the summary's watermark read so far: each is read (and, in a sealed store, opened) once, not at every think. */
  private unsummarised: UnsummarisedEntries | null = null;
  private readonly stopping = new AbortController();
  private readonly counter = new TokenCalibration();

  constructor(private readonly options: SummaryKeeperOptions) {}

  /** Reads the current version and the recent turns, then follows the log's appends. */
  async open(): Promise<void> {
    this.current = await this.options.store.latest();
    await this.reloadTail();
    this.options.conversation.onAppend((message) => {
      this.tail.push(message);
      // Trimmed in steps, not per message: the array stays between RECENT_KEPT and twice that.
      if (this.tail.length > 2 * RECENT_KEPT) this.tail.splice(0, this.tail.length - RECENT_KEPT);
    });
  }

  /** The current summary, or null before the first update. */
  summary(): ConversationSummary | null {
    return this.current;
  }

  /** The last conversation seq the summary covers (0: none). */
  watermark(): number {
    return this.current?.throughSeq ?? 0;
  }

  /**
   * The newest `limit` entries (at most RECENT_KEPT) after the watermark, oldest first: the recent turns a prompt may
   * show. From memory: no read on the way to a think.
   */
  recent(limit: number): ConversationMessage[] {
    const watermark = this.watermark();
    const from = Math.max(0, this.tail.length - Math.min(limit, RECENT_KEPT));
    const out: ConversationMessage[] = [];
    for (let i = from; i < this.tail.length; i++) if (this.tail[i]!.seq > watermark) out.push(this.tail[i]!);
    return out;
  }

  /** The update running in the background, if any (tests and the stop wait for it). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /**
   * Starts an update in the background if one is due and none runs; `charge` records each model call's cost.
   * Never rejects: a failed update is logged and tried again after a later think.
   */
  requestUpdate(charge: ChargeSummary): void {
    if (this.running !== null || this.stopping.signal.aborted) return;
    this.running = this.update(charge)
      .then(() => undefined)
      .catch((err: unknown) =>
        this.options.log.warn(
          { err: describeError(err) },
          'the conversation summary could not be updated; it is tried again after a later think',
        ),
      )
      .finally(() => {
        this.running = null;
      });
  }

  /** Runs the due updates now (at most a few chunks); resolves with how many were stored. */
  async update(charge: ChargeSummary): Promise<number> {
    const { store, conversation, contextTokens, summarize, clock } = this.options;
    let stored = 0;
    for (let chunk = 0; chunk < MAX_CHUNKS_PER_UPDATE; chunk++) {
      const signal = this.stopping.signal;
      if (signal.aborted) break;
      const watermark = this.watermark();
      // Held entries (a message on its way to the heartbeat) are not summarised before the prompt has seen them.
      const tail = await this.entriesAfter(watermark, conversation.watermark());
      const plan = planSummaryUpdate(tail, contextTokens, this.counter);
      if (plan === null) break;
      const request: SummaryRequest = {
        previous: this.current?.text ?? '',
        messages: plan.messages,
        maxSummaryTokens: maxSummaryTokens(contextTokens),
        contextTokens,
      };
      const result = await summarize(request, signal);
      await charge(result);
      // A restore may have moved the summary back meanwhile: an update planned on what it replaced is dropped.
      if (this.watermark() !== watermark) break;
      const next: ConversationSummary = {
        text: result.text,
        throughSeq: plan.throughSeq,
        updatedAt: clock.now(),
        model: result.model,
      };
      await store.put(next);
      this.current = next;
      stored += 1;
    }
    return stored;
  }

  /** A restore: back to the summary the checkpoint saw (or the one an import staged for it). */
  async rollBackTo(seq: number, checkpointId?: string): Promise<void> {
    await this.idle();
    await this.adopt(await this.options.store.rollBackTo(seq, checkpointId));
  }

  /**
   * A restore that writes the rollback in its own batch: the operations, and the version current once they are
   * written (hand it to `adopt` then). Waits for a running update first, so none lands after the rollback.
   */
  async prepareRollBack(
    seq: number,
    checkpointId?: string,
  ): Promise<{ ops: VigilBatchOp[]; current: ConversationSummary | null }> {
    await this.idle();
    return this.options.store.rollBackOps(seq, checkpointId);
  }

  /** Takes `current` as the summary after a rollback was written, and reads the log again around it. */
  async adopt(current: ConversationSummary | null): Promise<void> {
    this.current = current;
    // The log moved entries aside: what was read after the old watermark is read again.
    this.unsummarised = null;
    // The log itself moved entries aside: the recent turns are read again.
    await this.reloadTail();
  }

  /**
   * The log's entries with `watermark < seq <= upTo`, ascending. Only the entries past the last call's `upTo` are read;
   * those at or below a watermark that moved forward are dropped. A watermark moved back, or past what was read, or an
   * `upTo` below it (a restore archived entries) reads the whole range again.
   */
  private async entriesAfter(watermark: number, upTo: number): Promise<ConversationMessage[]> {
    const known = this.unsummarised;
    if (known === null || watermark < known.after || watermark > known.through || upTo < known.through) {
      const messages = await this.options.conversation.readRange(watermark, upTo);
      this.unsummarised = { after: watermark, through: Math.max(watermark, upTo), messages };
      return messages.slice();
    }
    const added = upTo > known.through ? await this.options.conversation.readRange(known.through, upTo) : [];
    // Another call changed it meanwhile (update() is public): this one's reads are still right for its own range.
    if (this.unsummarised !== known) return [...known.messages.filter((m) => m.seq > watermark), ...added];
    const messages = [...known.messages.filter((m) => m.seq > watermark), ...added];
    this.unsummarised = { after: watermark, through: Math.max(known.through, upTo), messages };
    return messages.slice();
  }

  /**
   * Reads the recent turns `recent` can show: only those after the summary's watermark (a few dozen, not the last
   * RECENT_KEPT of a months-old log at every boot). The watermark only moves forward until `adopt` reads again.
   */
  private async reloadTail(): Promise<void> {
    this.tail = await this.options.conversation.readLast(RECENT_KEPT, this.watermark());
  }

  /** Aborts a running update and waits for it. */
  async stop(): Promise<void> {
    this.stopping.abort(new Error('the runtime is stopping'));
    await this.idle();
  }
}
