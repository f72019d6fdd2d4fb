/** The words the model is told about a tool call it does not see end: a call that waits for an operator, a decided one, one a crash cut short. */
import type { ToolCallRecord } from '../../protocol/tool-call.schema.js';

const described = (record: Pick<ToolCallRecord, 'callId' | 'name' | 'args'>) =>
  `Tool call ${record.callId} (${record.name} with arguments ${JSON.stringify(record.args ?? null)})`;

/** The tool_result of a call that now waits for an operator: it did not run, and the turn waits with it. */
export function awaitingApprovalText(record: Pick<ToolCallRecord, 'callId' | 'name' | 'args'>): string {
  return (
    `${described(record)} needs an operator's approval and was not run: it waits for their decision. ` +
    'Do not call it again and do not answer the message about it yet: this turn stays open, and a later think ' +
    "of it will be given the call's result (or the denial and its reason) to answer with."
  );
}

/** The notice a think of the call's turn gets once the call was decided (and, if approved, ran or was cut short). */
export function decidedNoticeLine(record: ToolCallRecord): string {
  const approval = record.approval;
  if (approval?.state === 'denied') {
    const why = approval.reason === undefined ? 'no reason was given' : `the reason given: ${approval.reason}`;
    return `${described(record)} was denied by the operator (${why}). It was not run.`;
  }
  if (record.result === undefined) {
    return `${described(record)} was approved by the operator, but a restart interrupted it: its outcome is unknown. It was not run again: do not assume it did or did not take effect.`;
  }
  return record.result.ok
    ? `${described(record)} was approved by the operator and returned:\n${record.result.text}`
    : `${described(record)} was approved by the operator but failed:\n${record.result.text}`;
}

/** The notice a think of the call's turn gets once, after a restart cut short a call that needed no approval. */
export function unknownOutcomeNoticeLine(record: ToolCallRecord): string {
  const again = record.idempotent
    ? 'It is idempotent: you may call it again if you still need its result.'
    : 'It was not run again: do not assume it did or did not take effect; check or ask before repeating it.';
  return `${described(record)} was interrupted by a restart: its outcome is unknown. ${again}`;
}
