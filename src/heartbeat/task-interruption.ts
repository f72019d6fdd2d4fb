/** A task cut off after tool calls that may have taken effect: the rule that it never runs again blindly, and its words. */
import type { ToolCallRecord } from '../protocol/tool-call.schema.js';

/** True when any of a task's earlier calls was to a tool not listed as idempotent: running the task again could repeat it. */
export function actedNonIdempotently(calls: readonly ToolCallRecord[]): boolean {
  return calls.some((call) => !call.idempotent);
}

/** The outcome text of a task failed because it was cut off (a restart, a stop, the hard stop) after such calls. */
export function interruptedText(taskId: string, calls: readonly ToolCallRecord[]): string {
  const listed = calls.map(
    (call) =>
      `${call.name} (${call.callId}: ${call.result === undefined ? 'outcome unknown' : call.result.ok ? 'completed' : 'failed'})`,
  );
  return (
    `Task ${taskId} was interrupted by a restart or a stop after tool calls whose outcome is unknown to it: ${listed.join(', ')}. ` +
    'It was not run again, so those calls were not repeated; check their effects before starting it anew.'
  );
}
