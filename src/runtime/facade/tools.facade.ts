/** The facade's tools area: the servers (`tools.list`, the sign-ins `tools.login`, `tools.logout`) and the approvals `tools.pending`, `tools.approve`, `tools.deny`. */
import type { DenyToolCallParams, PendingToolCall, ToolDecision } from '../../protocol/tool-approvals.schema.js';
import { scopeAllows, type TokenScope } from '../../protocol/token-scopes.js';
import type { CallbackOutcome, ToolsListEntry, ToolsLoginResult } from '../../protocol/tools.schema.js';
import type { ToolCallDecision } from '../../subsystems/tools/durable-tool-caller.js';
import { runDetached } from '../../shared/run-detached.js';
import { iso, type RuntimeCore } from '../runtime-core.js';

/** The MCP servers as the operator sees them: `tools.list`, and the OAuth sign-ins (`tools.login`, `tools.logout`, the callback). */
export class McpServersFacade {
  constructor(private readonly core: RuntimeCore) {}

  /**
   * `tools.list`: every registered tool in the registry's order (by name), with its server's state now; then the
   * servers waiting for a sign-in, with the link to it only for a caller of `scope` operate (default: the embedder's
   * own call, which may do everything); then the servers down, with why and when they are tried again (every scope:
   * the reason is what `mcp.server_down` says).
   */
  list(scope: TokenScope = 'operate'): ToolsListEntry[] {
    const hub = this.core.parts.tools;
    const tools: ToolsListEntry[] = hub
      .list()
      .map(({ name, server, tool, description, requireApproval, idempotent, available }) => ({
        name,
        server,
        tool,
        description,
        requireApproval,
        idempotent,
        available,
        state: hub.needsSignIn(server) ? 'needs_auth' : available ? 'up' : 'down',
      }));
    const operator = scopeAllows(scope, 'operate');
    const signIns: ToolsListEntry[] = hub.signInsNeeded().map(({ server, authorizationUrl, expiresAt }) => ({
      server,
      state: 'needs_auth',
      ...(operator ? { authorizationUrl, expiresAt: iso(expiresAt) } : {}),
    }));
    const down: ToolsListEntry[] = hub.serversDown().map(({ server, error, nextRetryAt }) => ({
      server,
      state: 'down',
      error,
      nextRetryAt: iso(nextRetryAt),
    }));
    return [...tools, ...signIns, ...down];
  }

  /** `tools.login`: a fresh sign-in to `server`; MCP_SERVER_NOT_FOUND, RPC_INVALID_PARAMS (stdio, or no OAuth), TOOL_UNAVAILABLE (down). */
  async login(server: string): Promise<ToolsLoginResult> {
    this.core.assertRunning();
    const { authorizationUrl, expiresAt } = await this.core.parts.tools.login(server);
    return { authorizationUrl, expiresAt: iso(expiresAt) };
  }

  /** `tools.logout`: the tokens of `server` forgotten; it reconnects and asks for a sign-in if it wants one. */
  async logout(server: string): Promise<true> {
    this.core.assertRunning();
    await this.core.parts.tools.logout(server);
    return true;
  }

  /** `GET /oauth/callback`: finishes the sign-in its `state` names (single use, 10 minutes), or says why not. */
  completeSignIn(answer: { state: string; code?: string; error?: string }): Promise<CallbackOutcome> {
    return this.core.parts.tools.completeSignIn(answer);
  }

  /** The gateway's URL as a browser reaches it, once it listens: the callback's base unless VIGIL_PUBLIC_URL names one. */
  useGatewayUrl(url: string): void {
    this.core.parts.callbackUrl.setPublicUrl(url);
  }
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
