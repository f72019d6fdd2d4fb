/**
 * The arguments every client command parses (`--url`, `--token`, `--data-dir` and its own): node:util and a pure
 * helper alone, so a command can read them before it loads anything else (`vigil mcp` answers a host before loading the MCP SDK).
 */
import { parseArgs } from 'node:util';
import { nearestNames } from '../../shared/nearest-names.js';
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
  const options = {
    url: { type: 'string' },
    token: { type: 'string' },
    'data-dir': { type: 'string' },
    ...extra,
  } as const;
  try {
    const { values, positionals } = parseArgs({ args: argv, strict: true, allowPositionals: true, options });
    return { positionals, flags: values };
  } catch (err) {
    throw new UsageError(usageMessage(err as Error & { code?: string }, Object.keys(options)));
  }
}

/**
 * Node's sentence for a usage mistake, except an unknown option's: Node's ends in an unbalanced quote and names no
 * option near the one typed, so it is said again with the nearest flags.
 */
function usageMessage(err: Error & { code?: string }, flags: readonly string[]): string {
  const option = /^Unknown option '([^']+)'/.exec(err.message)?.[1];
  if (err.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || option === undefined) return err.message;
  const near = nearestNames(option.replace(/^-+/, ''), flags).map((flag) => `--${flag}`);
  const hint = near.length === 0 ? '' : ` (did you mean ${near.join(' or ')}?)`;
  return `Unknown option '${option}'${hint}. A text that starts with - goes after --, as in: -- "${option}"`;
}
