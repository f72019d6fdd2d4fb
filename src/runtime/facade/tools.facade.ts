/** The facade's tools area: `tools.list`, and the approvals `tools.pending`, `tools.approve`, `tools.deny`. */
import type { DenyToolCallParams, PendingToolCall, ToolDecision } from '../../protocol/tool-approvals.schema.js';
import type { ToolView } from '../../protocol/tools.schema.js';
import type { ToolCallDecision } from '../../subsystems/tools/durable-tool-caller.js';
import { runDetached } from '../../shared/run-detached.js';
import { iso, type RuntimeCore } from '../runtime-core.js';

/** `tools.list`: every registered tool in the registry's order (by name), with its server's availability now. */
export function listTools(core: RuntimeCore): ToolView[] {
  return core.parts.tools.list().map(({ name, server, tool, description, requireApproval, idempotent, available }) => ({
    name,
    server,
    tool,
    description,
    requireApproval,
    idempotent,
    available,
  }));
}

/** `tools.pending`: the calls waiting for an operator, oldest first. */
export function pendingToolCalls(core: RuntimeCore): PendingToolCall[] {
  return core.parts.toolCalls.pending().map(({ callId, name, args, turnId, taskId, at }) => ({
    callId,
    name,
    args,
    ...(turnId === undefined ? {} : { turnId }),
    ...(taskId === undefined ? {} : { taskId }),
    requestedAt: iso(at),
  }));
}

/** `tools.approve`: the call runs now; once its result is stored the heartbeat wakes for the turn that waits on it. */
export async function approveToolCall(core: RuntimeCore, callId: string): Promise<ToolDecision> {
  core.assertRunning();
  const { decision, ran } = await core.parts.toolCalls.approve(callId);
  // Not waited for: the operator's answer is the decision; the call runs on and wakes the turn when its result is stored.
  runDetached(
    ran.then(() => wake(core)),
    core.parts.log,
    'waking the heartbeat after an approved tool call',
  );
  return view(decision);
}

/** `tools.deny`: the call is never run; the heartbeat wakes for the turn, which is told why. */
export async function denyToolCall(core: RuntimeCore, params: DenyToolCallParams): Promise<ToolDecision> {
  core.assertRunning();
  const decision = await core.parts.toolCalls.deny(params.callId, params.reason);
  wake(core);
  return view(decision);
}

function wake(core: RuntimeCore): void {
  if (!core.stopped) core.actor.send({ type: 'TOOL_DECIDED' });
}

function view(decision: ToolCallDecision): ToolDecision {
  const { callId, name, approved, reason, decidedAt } = decision;
  return { callId, name, approved, ...(reason === undefined ? {} : { reason }), decidedAt: iso(decidedAt) };
}
