/** The flags every client command shares (`--url`, `--token`, `--data-dir`), resolved against the environment and the token file. */
import { parseArgs } from 'node:util';
import { readTokenFile } from '../../shared/token-file.js';
import type { ConnectOptions } from '../vigil-client.js';
import { UsageError, type CliIo } from './cli-io.js';

/** Parsed arguments of a client command: its positionals and flags. */
export interface ClientArgs {
  positionals: string[];
  flags: Record<string, string | boolean | undefined>;
}

/** Parses `argv` with the shared flags plus `extra`; throws UsageError on an unknown flag or a missing value. */
export function parseClientArgs(argv: string[], extra: Record<string, { type: 'string' | 'boolean' }> = {}): ClientArgs {
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

const nonEmpty = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** The daemon URL: `--url`, else `http://VIGIL_HOST:VIGIL_PORT` (a wildcard host means this machine). */
export function daemonUrl(flags: ClientArgs['flags'], env: CliIo['env']): string {
  const explicit = nonEmpty(flags['url']);
  if (explicit !== undefined) {
    try {
      return new URL(explicit).toString();
    } catch {
      throw new UsageError(`--url ${JSON.stringify(explicit)} is not a URL (expected e.g. http://127.0.0.1:7420).`);
    }
  }
  let host = nonEmpty(env['VIGIL_HOST']) ?? '127.0.0.1';
  if (host === '0.0.0.0') host = '127.0.0.1';
  if (host === '::' || host === '[::]') host = '::1';
  const port = nonEmpty(env['VIGIL_PORT']) ?? '7420';
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535 || Number(port) === 0) {
    throw new UsageError(`VIGIL_PORT=${JSON.stringify(port)} is invalid for a client: expected the daemon's port, 1 to 65535 (or pass --url).`);
  }
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${bracketed}:${port}`;
}

/** How to connect: URL, and the token from `--token`, `VIGIL_TOKEN`, or the data dir's token file. */
export async function clientOptions(args: ClientArgs, io: CliIo): Promise<ConnectOptions> {
  const url = daemonUrl(args.flags, io.env);
  const token =
    nonEmpty(args.flags['token']) ??
    nonEmpty(io.env['VIGIL_TOKEN']) ??
    (await readTokenFile(nonEmpty(args.flags['data-dir']) ?? nonEmpty(io.env['VIGIL_DATA_DIR']) ?? './data'));
  return { url, token };
}
