/** `vigil thinks list [--limit N] [--before ID] [--json]` and `vigil thinks show ID [--json]`: the think traces (CONTRACT §10). */
import { MAX_THINKS_PAGE } from '../../protocol/thinks.schema.js';
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs } from './client-args.js';
import { printJson, runClientCommand } from './run-client-command.js';
import { formatThink, formatThinkLine } from './thinks-format.js';

/** The usage lines. */
export const THINKS_USAGE =
  'usage: vigil thinks list [--limit N] [--before ID] [--json] | vigil thinks show ID [--json] [--url URL] [--token TOKEN] [--data-dir D]';

const DEFAULT_LIMIT = 20;

/** Runs `vigil thinks …`. */
export function thinksCommand(argv: string[], io: CliIo): Promise<number> {
  return runClientCommand(
    io,
    THINKS_USAGE,
    () => {
      const args = parseClientArgs(argv, {
        limit: { type: 'string' },
        before: { type: 'string' },
        json: { type: 'boolean' },
      });
      const [sub, ...rest] = args.positionals;
      if (sub === 'list') {
        if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
        const limit = args.flags['limit'];
        if (limit !== undefined && (!/^[1-9]\d*$/.test(String(limit)) || Number(limit) > MAX_THINKS_PAGE)) {
          throw new UsageError(
            `--limit must be an integer from 1 to ${MAX_THINKS_PAGE}, not ${JSON.stringify(limit)}.`,
          );
        }
        if (args.flags['before'] === '') throw new UsageError('--before needs a think id.');
        return args;
      }
      if (sub === 'show') {
        if (rest.length !== 1 || rest[0] === '') throw new UsageError('thinks show needs exactly one think id.');
        if (args.flags['limit'] !== undefined || args.flags['before'] !== undefined)
          throw new UsageError('--limit and --before go with thinks list.');
        return args;
      }
      throw new UsageError(
        sub === undefined ? 'thinks needs a subcommand (list or show).' : `unknown thinks subcommand "${sub}".`,
      );
    },
    async (client, args) => {
      const json = args.flags['json'] === true;
      const [sub, id] = args.positionals;
      if (sub === 'show') {
        const think = await client.thinks.get({ id: id! });
        if (json) printJson(io, think);
        else io.stdout(`${formatThink(think)}\n`);
        return 0;
      }
      const limit = args.flags['limit'] === undefined ? DEFAULT_LIMIT : Number(args.flags['limit']);
      const before = typeof args.flags['before'] === 'string' ? { before: args.flags['before'] } : {};
      const thinks = await client.thinks.list({ limit, ...before });
      if (json) printJson(io, thinks);
      else for (const think of thinks) io.stdout(`${formatThinkLine(think)}\n`);
      // A full page may have older thinks behind it: say how to page back (stderr, so stdout stays the thinks).
      if (thinks.length === limit)
        io.stderr(`vigil: older thinks may follow: vigil thinks list --before ${thinks.at(-1)!.id}\n`);
      if (thinks.length === 0) io.stderr('vigil: no thinks traced yet.\n');
      return 0;
    },
  );
}
