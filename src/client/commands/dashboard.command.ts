/**
 * `vigil dashboard`: a one-time link that signs a browser in to the dashboard (RPC `auth.signIn`), with the scope of
 * the token the command runs with. The token itself never enters a URL, a browser's history or the terminal; the
 * link is good once, for two minutes, and a browser opening it is sent on to the page at once.
 */
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs } from './client-args.js';
import { resolveTarget } from './client-options.js';
import { printJson, runClientCommand } from './run-client-command.js';

/** The usage line. */
export const DASHBOARD_USAGE = 'usage: vigil dashboard [--json]   [--url URL] [--token TOKEN] [--data-dir D]';

const FLAGS = { json: { type: 'boolean' } } as const;

/** Runs `vigil dashboard`. */
export function dashboardCommand(argv: string[], io: CliIo): Promise<number> {
  const parse = () => {
    const args = parseClientArgs(argv, FLAGS);
    if (args.positionals.length > 0) throw new UsageError(`unexpected arguments: ${args.positionals.join(' ')}`);
    return args;
  };
  return runClientCommand(io, DASHBOARD_USAGE, parse, async (client, args) => {
    const link = await client.auth.signIn();
    // The gateway as this command reached it: the browser on this machine reaches it there too.
    const { url } = await resolveTarget(args, io);
    const address = `${dashboardOrigin(url)}${link.path}`;
    if (args.flags['json'] === true) {
      printJson(io, { url: address, expiresAt: link.expiresAt });
      return 0;
    }
    io.stdout(`${address}\n`);
    io.stderr(`vigil: open it in a browser: it signs in once, until ${link.expiresAt}, and leaves the address.\n`);
    return 0;
  });
}

/** `http://host:port` of a gateway URL given as `ws://…/rpc` or `http://…`. */
export function dashboardOrigin(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol === 'ws:') parsed.protocol = 'http:';
  if (parsed.protocol === 'wss:') parsed.protocol = 'https:';
  return parsed.origin;
}
