/** `vigil rpc METHOD [PARAMS_JSON]`: one JSON-RPC call, its result printed as JSON. */
import type { RpcMethodName } from '../../protocol/rpc-methods.js';
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs } from './client-args.js';
import { printJson, runClientCommand } from './run-client-command.js';

/** The usage line. */
export const RPC_USAGE = 'usage: vigil rpc METHOD [PARAMS_JSON] [--url URL] [--token TOKEN] [--data-dir D]';

/** Runs `vigil rpc`. */
export function rpcCommand(argv: string[], io: CliIo): Promise<number> {
  let params: unknown = {};
  return runClientCommand(
    io,
    RPC_USAGE,
    () => {
      const args = parseClientArgs(argv);
      const [method, paramsText, ...rest] = args.positionals;
      if (method === undefined) throw new UsageError('rpc needs a METHOD (e.g. heartbeat.status).');
      if (rest.length > 0) throw new UsageError(`unexpected arguments after PARAMS_JSON: ${rest.join(' ')}`);
      if (paramsText !== undefined) {
        try {
          params = JSON.parse(paramsText);
        } catch (err) {
          throw new UsageError(`PARAMS_JSON is not valid JSON (${(err as Error).message}): ${paramsText}`);
        }
      }
      return args;
    },
    async (client, args) => {
      // Any name goes to the server, which answers -32601 for one it does not know.
      printJson(io, await client.call(args.positionals[0] as RpcMethodName, params as never));
    },
    // CONTRACT §2: the error object as the server sent it on stderr; the line after it names the method.
    { rawErrors: true },
  );
}
