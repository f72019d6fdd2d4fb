/** Runs a client command and turns its outcome into CONTRACT §2 exit codes: 0 done, 1 RPC or runtime error, 2 bad usage. */
import { describeError, isVigilError } from '../../errors.js';
import { RpcError } from '../rpc-error.js';
import { connect, type VigilClient } from '../vigil-client.js';
import { UsageError, type CliIo } from './cli-io.js';
import { clientOptions, type ClientArgs } from './client-options.js';

/** Prints `value` as indented JSON on stdout. */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
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
    client = await connect({ ...(await clientOptions(args, io)), reconnect: options.reconnect ?? false });
    return (await body(client, args)) ?? 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`vigil: ${err.message}\n${usage}\n`);
      return 2;
    }
    if (err instanceof RpcError) {
      // The JSON-RPC error as the server sent it, on stderr (CONTRACT §2).
      io.stderr(`${JSON.stringify(err.toJSON())}\n`);
      return 1;
    }
    const hint = isVigilError(err, 'GATEWAY_UNAUTHORIZED') ? ' (pass --token, set VIGIL_TOKEN, or --data-dir of the daemon)' : '';
    io.stderr(`vigil: ${describeError(err)}${hint}\n`);
    return 1;
  } finally {
    // The exit code is decided; a connection that fails to close cleanly changes nothing for the user.
    await client?.close().catch(() => undefined);
  }
}
