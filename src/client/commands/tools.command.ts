/** `vigil tools list [--json]`: the MCP tools the agent may use, one line each. */
import type { ToolView } from '../../protocol/tools.schema.js';
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs } from './client-options.js';
import { printJson, runClientCommand } from './run-client-command.js';

/** The usage line. */
export const TOOLS_USAGE = 'usage: vigil tools list [--json] [--url URL] [--token TOKEN] [--data-dir D]';

/** Runs `vigil tools …`. */
export function toolsCommand(argv: string[], io: CliIo): Promise<number> {
  return runClientCommand(
    io,
    TOOLS_USAGE,
    () => {
      const args = parseClientArgs(argv, { json: { type: 'boolean' } });
      const [sub, ...rest] = args.positionals;
      if (sub !== 'list') throw new UsageError(sub === undefined ? 'tools needs a subcommand.' : `unknown tools subcommand "${sub}".`);
      if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
      return args;
    },
    async (client, args) => {
      const tools = await client.tools.list();
      if (args.flags['json'] === true) printJson(io, tools);
      else for (const tool of tools) io.stdout(`${formatTool(tool)}\n`);
      if (tools.length === 0) io.stderr('vigil: no tools (set VIGIL_MCP_CONFIG to give the agent MCP servers).\n');
      return 0;
    },
  );
}

/** One tool as one line: `NAME  up|down  [approval]  DESCRIPTION` (the description's first line, escaped of controls). */
export function formatTool(tool: ToolView): string {
  const state = tool.available ? 'up' : 'down';
  const flags = [tool.requireApproval ? 'approval' : '', tool.idempotent ? 'idempotent' : ''].filter((f) => f !== '').join(',');
  // A server's description is not ours: no newline or escape sequence of it reaches the operator's terminal.
  const description = (tool.description.split('\n')[0] ?? '').replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  return [tool.name, state, flags === '' ? '-' : flags, description].join('\t');
}
