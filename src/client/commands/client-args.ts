/**
 * The arguments every client command parses (`--url`, `--token`, `--data-dir` and its own): node:util alone, so a
 * command can read them before it loads anything else (`vigil mcp` answers a host before loading the MCP SDK).
 */
import { parseArgs } from 'node:util';
import { UsageError } from './cli-io.js';

/** Parsed arguments of a client command: its positionals and flags. */
export interface ClientArgs {
  positionals: string[];
  flags: Record<string, string | boolean | undefined>;
}

/** Parses `argv` with the shared flags plus `extra`; throws UsageError on an unknown flag or a missing value. */
export function parseClientArgs(
  argv: string[],
  extra: Record<string, { type: 'string' | 'boolean' }> = {},
): ClientArgs {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: { url: { type: 'string' }, token: { type: 'string' }, 'data-dir': { type: 'string' }, ...extra },
    });
    return { positionals, flags: values };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
