/** Runs a client command and turns its outcome into CONTRACT §2 exit codes: 0 done, 1 RPC or runtime error, 2 bad usage. */
import { isVigilError } from '../../errors.js';
import { failureReport } from '../../shared/failure-report.js';
import { RpcError } from '../rpc-error.js';
import { connect, type VigilClient } from '../vigil-client.js';
import { UsageError, type CliIo } from './cli-io.js';
import type { ClientArgs } from './client-args.js';
import { resolveTarget } from './client-options.js';
import { describeConnectFailure } from './connect-failure.js';

/** Prints `value` as indented JSON on stdout. */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** The `suggestions` a -32601 carries in `data` (names the server knows near the one asked for). */
export function methodSuggestions(err: RpcError): string[] {
  if (err.code !== -32601 || typeof err.data !== 'object' || err.data === null) return [];
  const suggestions = (err.data as { suggestions?: unknown }).suggestions;
  return Array.isArray(suggestions) ? suggestions.filter((s): s is string => typeof s === 'string') : [];
}

/** Runs `body` (usage checks first, then with a connected client); resolves to the exit code. */
export async function runClientCommand(
  io: CliIo,
  usage: string,
  prepare: () => ClientArgs,
  body: (client: VigilClient, args: ClientArgs) => Promise<number | void>,
  options: { reconnect?: boolean } = {},
): Promise<number> {
  let client: VigilClient | undefined;
  try {
    const args = prepare();
    const target = await resolveTarget(args, io);
    try {
      client = await connect({ url: target.url, token: target.token, reconnect: options.reconnect ?? false });
    } catch (err) {
      const message = describeConnectFailure(err, target);
      if (message === undefined) throw err;
      io.stderr(`vigil: ${message}\n`);
      return 1;
    }
    return (await body(client, args)) ?? 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`vigil: ${err.message}\n${usage}\n`);
      return 2;
    }
    if (err instanceof RpcError) {
      // The JSON-RPC error as the server sent it, on stderr (CONTRACT §2), then the names it suggests, for people.
      io.stderr(`${JSON.stringify(err.toJSON())}\n`);
      if (err.code === -32003) {
        const scope = (err.data as { scope?: unknown } | undefined)?.scope;
        io.stderr(
          `vigil: this token may not call ${err.method}${typeof scope === 'string' ? `: it needs a token of scope ${scope}` : ''}.\n`,
        );
      }
      const suggestions = methodSuggestions(err);
      if (suggestions.length > 0)
        io.stderr(`vigil: no method "${err.method}"; did you mean ${suggestions.map((s) => `"${s}"`).join(' or ')}?\n`);
      return 1;
    }
    // A known failure's message says what to do; anything else is one line too, its stack only for debugging.
    io.stderr(failureReport(err, io.env));
    return isVigilError(err, 'CONFIG_INVALID') ? 2 : 1;
  } finally {
    // The exit code is decided; a connection that fails to close cleanly changes nothing for the user.
    await client?.close().catch(() => undefined);
  }
}
