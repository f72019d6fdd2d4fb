/** What the heartbeat sees of tool-call approvals: which turns wait for an operator, and which have a decision to hear. */

/** The turns held by approvals, read at every sense and settle (cheap: the same set until an approval changes). */
export interface ApprovalWaits {
  /** Turns waiting for an operator's decision, or for an approved call that is still running: not thought about yet. */
  waitingTurnIds(): ReadonlySet<string>;
  /** Those, and turns whose decision is ready but not yet shown to a think of theirs: a think that carried one and did not answer it is not counted as a miss. */
  heldTurnIds(): ReadonlySet<string>;
}

/** No turn waits. */
export const NO_APPROVAL_WAITS: ReadonlySet<string> = new Set<string>();
