/**
 * What each think did besides replying (remember, feel, goal and task actions), kept so a debrief can see the work of
 * the turn it validates. In memory only, on purpose: these calls carry what the agent remembered, which must not
 * reach the disk in the clear (working memory is sealed inside checkpoints). After a restart a debrief still sees
 * the turn's messages, replies and MCP tool calls, which are on disk already.
 */
import type { TurnWorkRecord } from '../../protocol/turn-work.schema.js';

/** Records kept: far more thinks than one turn makes. */
export const TURN_WORK_KEPT = 500;

/** The log: the newest records, oldest first. */
export class TurnWorkLog {
  private readonly records: TurnWorkRecord[] = [];

  /** Appends one think's work (nothing when it made no such call), dropping the oldest past the kept count. */
  record(record: TurnWorkRecord): void {
    if (record.calls.length === 0) return;
    this.records.push(record);
    if (this.records.length > TURN_WORK_KEPT) this.records.splice(0, this.records.length - TURN_WORK_KEPT);
  }

  /** Records from `from` to `to` (epoch ms, inclusive), oldest first. */
  between(from: number, to: number): TurnWorkRecord[] {
    return this.records.filter((r) => r.at >= from && r.at <= to);
  }
}
