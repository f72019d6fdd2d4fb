/** `vigil tools list [--json] | pending [--json] | approve ID | deny ID [--reason R]`: the MCP tools, and the calls waiting for an operator. */
import type { PendingToolCall } from '../../protocol/tool-approvals.schema.js';
import type { ToolView } from '../../protocol/tools.schema.js';
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs } from './client-args.js';
import { printJson, runClientCommand } from './run-client-command.js';

/** The usage lines. */
export const TOOLS_USAGE = `usage: vigil tools list [--json]
       vigil tools pending [--json]
       vigil tools approve CALL_ID
       vigil tools deny CALL_ID [--reason R]
  each takes [--url URL] [--token TOKEN] [--data-dir D]`;

const ARITY: Record<string, number> = { list: 0, pending: 0, approve: 1, deny: 1 };

/** Runs `vigil tools …`. */
export function toolsCommand(argv: string[], io: CliIo): Promise<number> {
  return runClientCommand(
    io,
    TOOLS_USAGE,
    () => {
      const args = parseClientArgs(argv, { json: { type: 'boolean' }, reason: { type: 'string' } });
      const [sub, ...rest] = args.positionals;
      if (sub === undefined || ARITY[sub] === undefined) {
        throw new UsageError(sub === undefined ? 'tools needs a subcommand.' : `unknown tools subcommand "${sub}".`);
      }
      if (rest.length !== ARITY[sub]) {
        throw new UsageError(
          rest.length > ARITY[sub]
            ? `unexpected arguments: ${rest.slice(ARITY[sub]).join(' ')}`
            : `tools ${sub} needs a call id (see vigil tools pending).`,
        );
      }
      if (args.flags['reason'] !== undefined && sub !== 'deny')
        throw new UsageError('--reason goes with tools deny only.');
      return args;
    },
    async (client, args) => {
      const [sub, callId] = args.positionals as [string, string];
      const json = args.flags['json'] === true;
      switch (sub) {
        case 'list': {
          const tools = await client.tools.list();
          if (json) printJson(io, tools);
          else for (const tool of tools) io.stdout(`${formatTool(tool)}\n`);
          if (tools.length === 0) io.stderr('vigil: no tools (set VIGIL_MCP_CONFIG to give the agent MCP servers).\n');
          return 0;
        }
        case 'pending': {
          const pending = await client.tools.pending();
          if (json) printJson(io, pending);
          else for (const call of pending) io.stdout(`${formatPending(call)}\n`);
          if (pending.length === 0 && !json) io.stderr('vigil: no tool call waits for approval.\n');
          return 0;
        }
        case 'approve':
          printJson(io, await client.tools.approve({ callId }));
          return 0;
        default: {
          const reason = args.flags['reason'];
          printJson(io, await client.tools.deny({ callId, ...(typeof reason === 'string' ? { reason } : {}) }));
          return 0;
        }
      }
    },
  );
}

// A server's or a model's text is not ours: no newline or escape sequence of it reaches the operator's terminal.
const oneLine = (text: string) => text.replace(/\p{Cc}/gu, ' ');

/** One tool as one line: `NAME  up|down  [approval]  DESCRIPTION` (the description's first line, escaped of controls). */
export function formatTool(tool: ToolView): string {
  const state = tool.available ? 'up' : 'down';
  const flags = [tool.requireApproval ? 'approval' : '', tool.idempotent ? 'idempotent' : '']
    .filter((f) => f !== '')
    .join(',');
  const description = oneLine(tool.description.split('\n')[0] ?? '');
  return [tool.name, state, flags === '' ? '-' : flags, description].join('\t');
}

/** One waiting call as one line: `CALL_ID  NAME  REQUESTED_AT  TURN_ID|-  ARGS_JSON`. */
export function formatPending(call: PendingToolCall): string {
  return [
    call.callId,
    call.name,
    call.requestedAt,
    call.turnId ?? '-',
    oneLine(JSON.stringify(call.args ?? null)),
  ].join('\t');
}
