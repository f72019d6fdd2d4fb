/** Runs a client command and turns its outcome into CONTRACT §2 exit codes: 0 done, 1 RPC or runtime error, 2 bad usage. */
import { isVigilError } from '../../errors.js';
import { failureReport } from '../../shared/failure-report.js';
import { RpcError } from '../rpc-error.js';
import { connect, type VigilClient } from '../vigil-client.js';
import { UsageError, type CliIo } from './cli-io.js';
import type { ClientArgs } from './client-args.js';
import { resolveTarget } from './client-options.js';
import { describeConnectFailure } from './connect-failure.js';
import { describeRpcError } from './rpc-error-advice.js';

/** Prints `value` as indented JSON on stdout. */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** The command's name in its usage line (`usage: vigil webhooks …` → `webhooks`). */
function commandName(usage: string): string {
  return /^usage: vigil (\S+)/.exec(usage)?.[1] ?? 'COMMAND';
}

/**
 * Prints a server's JSON-RPC error on stderr. A command whose output is JSON (`rpc`, `checkpoints`: `rawErrors`)
 * prints the error object as the server sent it (CONTRACT §2), then the human line; `--json` the object alone, for a
 * program to read; any other command the human line alone: the message and what to do.
 */
function printRpcError(io: CliIo, err: RpcError, usage: string, raw: 'raw' | 'raw-and-line' | 'line'): void {
  if (raw !== 'line') io.stderr(`${JSON.stringify(err.toJSON())}\n`);
  if (raw !== 'raw') io.stderr(`vigil: ${describeRpcError(err, commandName(usage))}\n`);
}

/** Runs `body` (usage checks first, then with a connected client); resolves to the exit code. */
export async function runClientCommand(
  io: CliIo,
  usage: string,
  prepare: () => ClientArgs,
  body: (client: VigilClient, args: ClientArgs) => Promise<number | void>,
  options: { reconnect?: boolean; rawErrors?: boolean } = {},
): Promise<number> {
  let client: VigilClient | undefined;
  let json = false;
  try {
    const args = prepare();
    json = args.flags['json'] === true;
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
      printRpcError(io, err, usage, json ? 'raw' : options.rawErrors === true ? 'raw-and-line' : 'line');
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
