/** Where a tool call the caller keeps in memory stands: one state per call, one pure `transition`, and `phaseOf` for a stored record. */
import type { ToolCallRecord, ToolCallResult } from '../../protocol/tool-call.schema.js';
import type { ToolCallNotice } from '../thinking/think-tools.js';
import { decidedNoticeLine, unknownOutcomeNoticeLine } from './approval-notices.js';
import { NO_APPROVAL_WAITS } from './approval-waits.js';

/**
 * A call the caller still has something to do with. A call that needs no approval is kept only when a crash left
 * its outcome unknown (to tell its turn once); every other call is forgotten once its turn was told (or never kept).
 */
export type CallState =
  /** Waits for an operator: its turn waits too. */
  | { phase: 'awaiting-approval'; record: ToolCallRecord }
  /** A decision on it is being written: its turn still waits, and a second decision is refused. */
  | { phase: 'deciding'; record: ToolCallRecord }
  /** Approved (the decision is on disk) and running: its turn waits for the result. */
  | { phase: 'running'; record: ToolCallRecord }
  /** Denied, or approved and ended (ran, or cut short by a crash): held for its turn until a think of it is told. */
  | { phase: 'decided-untold'; record: ToolCallRecord; notice: ToolCallNotice }
  /** A call without approval a crash left unknown, announced at this boot: shown to its turn's next think. */
  | { phase: 'unknown-untold'; notice: ToolCallNotice };

/** What happens to a call. */
export type CallEvent =
  /** Its approval request was written. */
  | { type: 'requested'; record: ToolCallRecord }
  /** An operator's decision was taken up; it is being written. */
  | { type: 'decision-started' }
  /** The decision could not be written: the call waits again. */
  | { type: 'decision-failed' }
  /** The decision (`record.approval`, approved or denied) was written. */
  | { type: 'decided'; record: ToolCallRecord }
  /** The approved call ran; its result is stored. */
  | { type: 'ran'; result: ToolCallResult }
  /** The approved call could not be run to the end (its outcome is logged; nobody is told). */
  | { type: 'run-failed' }
  /** A think of its turn was shown its notice and ended normally. */
  | { type: 'told' }
  /** Boot found the stored `record` (anything but an unannounced interrupted call). */
  | { type: 'recovered'; record: ToolCallRecord }
  /** Boot found `record` interrupted (an intent without a result) and announced it with `tool.interrupted`. */
  | { type: 'announced'; record: ToolCallRecord };

/** A transition's outcome: the call's next state (`undefined`: nothing left to keep), or why the event does not apply. */
export type CallStep = { ok: true; state: CallState | undefined } | { ok: false; refused: string };

/** Where a stored record stands, as boot finds it. */
export type RecordPhase =
  /** Waits for an operator (again). */
  | 'awaiting-approval'
  /** Decided (denied, ran, or cut short and announced) and its turn not told yet. */
  | 'decision-untold'
  /** An intent without a result, not yet announced: never run again; `tool.interrupted` is due, once. */
  | 'interrupted-unannounced'
  /** Nothing left to do. */
  | 'settled';

/** The phase of a stored record: what boot owes it. */
export function phaseOf(record: ToolCallRecord): RecordPhase {
  const approval = record.approval;
  if (approval?.state === 'pending') return 'awaiting-approval';
  // A denied call never ran: no result, nothing to announce, only its turn to tell.
  if (approval?.state === 'denied') return approval.delivered === true ? 'settled' : 'decision-untold';
  if (record.result === undefined && record.interruptedReported !== true) return 'interrupted-unannounced';
  return approval !== undefined && approval.delivered !== true ? 'decision-untold' : 'settled';
}

/** The one way a call's state changes: pure; an event that does not apply to the state is refused, the state kept. */
export function transition(state: CallState | undefined, event: CallEvent): CallStep {
  switch (event.type) {
    case 'requested':
      return state === undefined ? to({ phase: 'awaiting-approval', record: event.record }) : refuse(state, event);
    case 'decision-started':
      return state?.phase === 'awaiting-approval'
        ? to({ phase: 'deciding', record: state.record })
        : refuse(state, event);
    case 'decision-failed':
      return state?.phase === 'deciding'
        ? to({ phase: 'awaiting-approval', record: state.record })
        : refuse(state, event);
    case 'decided': {
      if (state?.phase !== 'deciding') return refuse(state, event);
      const verdict = event.record.approval?.state;
      if (verdict === 'approved') return to({ phase: 'running', record: event.record });
      return verdict === 'denied' ? to(untold(event.record)) : refuse(state, event, 'a decision approves or denies');
    }
    case 'ran':
      return state?.phase === 'running' ? to(untold({ ...state.record, result: event.result })) : refuse(state, event);
    case 'run-failed':
      return state?.phase === 'running' ? to(undefined) : refuse(state, event);
    case 'told':
      return state?.phase === 'decided-untold' || state?.phase === 'unknown-untold'
        ? to(undefined)
        : refuse(state, event);
    case 'recovered':
      return state === undefined ? recovered(event.record) : refuse(state, event);
    case 'announced': {
      if (state !== undefined) return refuse(state, event);
      if (phaseOf(event.record) !== 'interrupted-unannounced')
        return refuse(state, event, 'only an unannounced interrupted call is announced');
      const announced = { ...event.record, interruptedReported: true };
      // An approved call's turn hears of it through its decision (which persists until told); any other call's is
      // told once, at this boot.
      if (announced.approval === undefined)
        return to({ phase: 'unknown-untold', notice: noticeOf(announced, unknownOutcomeNoticeLine(announced)) });
      return recovered(announced);
    }
  }
}

/** True for a call whose turn is still to be told about it. */
export function isUntold(
  state: CallState,
): state is Extract<CallState, { phase: 'decided-untold' | 'unknown-untold' }> {
  return state.phase === 'decided-untold' || state.phase === 'unknown-untold';
}

/** The turns held by approvals: the turns calls in `states` keep waiting, and those plus the ones still to be told. */
export interface TurnWaits {
  waiting: ReadonlySet<string>;
  held: ReadonlySet<string>;
}

/** The turns `states` hold: waiting while a call awaits, is decided or runs; held too until a decision is told. */
export function turnWaits(states: Iterable<CallState>): TurnWaits {
  const waiting: string[] = [];
  const told: string[] = [];
  for (const state of states) {
    // A call of unknown outcome is told to its turn, but does not hold it: the turn may end without it.
    if (state.phase === 'unknown-untold' || state.record.turnId === undefined) continue;
    (state.phase === 'decided-untold' ? told : waiting).push(state.record.turnId);
  }
  const held = [...waiting, ...told];
  return {
    waiting: waiting.length === 0 ? NO_APPROVAL_WAITS : new Set(waiting),
    held: held.length === 0 ? NO_APPROVAL_WAITS : new Set(held),
  };
}

const to = (state: CallState | undefined): CallStep => ({ ok: true, state });

function refuse(state: CallState | undefined, event: CallEvent, why?: string): CallStep {
  return {
    ok: false,
    refused: `${event.type} does not apply to a call ${state === undefined ? 'not kept' : state.phase}${why === undefined ? '' : `: ${why}`}`,
  };
}

function recovered(record: ToolCallRecord): CallStep {
  switch (phaseOf(record)) {
    case 'awaiting-approval':
      return to({ phase: 'awaiting-approval', record });
    case 'decision-untold':
      return to(untold(record));
    case 'interrupted-unannounced':
      return refuse(undefined, { type: 'recovered', record }, 'an interrupted call is announced first');
    case 'settled':
      return to(undefined);
  }
}

function untold(record: ToolCallRecord): CallState {
  return { phase: 'decided-untold', record, notice: noticeOf(record, decidedNoticeLine(record)) };
}

function noticeOf(record: ToolCallRecord, line: string): ToolCallNotice {
  return { callId: record.callId, turnId: record.turnId, name: record.name, line };
}
