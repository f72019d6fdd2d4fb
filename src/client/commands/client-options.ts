/**
 * The flags every client command shares (`--url`, `--token`, `--data-dir`), resolved against the environment, the
 * data dir's `daemon.json` and its token file (CONTRACT §2): where the daemon is, which token to present, and where
 * each came from, so a failure can say what to change.
 */
import { stat } from 'node:fs/promises';
import { VigilError } from '../../errors.js';
import { readDaemonFile, type DaemonFileRead } from '../../shared/daemon-file.js';
import { shellQuote } from '../../shared/shell-quote.js';
import { readTokenFile, tokenFilePath } from '../../shared/token-file.js';
import type { ConnectOptions } from '../vigil-client.js';
import type { ClientArgs } from './client-args.js';
import { UsageError, type CliIo } from './cli-io.js';

const nonEmpty = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** The data dir `vigil run` uses when neither `--data-dir` nor `VIGIL_DATA_DIR` says otherwise. */
export const DEFAULT_DATA_DIR = './data';

/** Where the URL came from. */
export type UrlSource =
  { kind: 'flag' } | { kind: 'daemon-file'; path: string; pid: number } | { kind: 'env' } | { kind: 'default' };
/** Where the token came from (never the token itself). */
export type TokenSource = { kind: 'flag' } | { kind: 'env' } | { kind: 'file'; path: string };

/** The daemon a client command talks to, and how it was found. */
export interface DaemonTarget {
  url: string;
  urlSource: UrlSource;
  token: string;
  tokenSource: TokenSource;
  dataDir: string;
  /** The data dir's daemon.json as read (unused when `--url` was given). */
  daemonFile: DaemonFileRead | undefined;
}

/** The data dir a client command reads `daemon.json` and the token file from: `--data-dir`, `VIGIL_DATA_DIR`, `./data`. */
export function clientDataDir(flags: ClientArgs['flags'], env: CliIo['env']): string {
  return nonEmpty(flags['data-dir']) ?? nonEmpty(env['VIGIL_DATA_DIR']) ?? DEFAULT_DATA_DIR;
}

/** `vigil run` with the data dir flag it needs to use `dataDir` (none for the default). */
export function runCommandFor(dataDir: string): string {
  return dataDir === DEFAULT_DATA_DIR ? 'vigil run' : `vigil run --data-dir ${shellQuote(dataDir)}`;
}

/** The URL from `VIGIL_HOST`/`VIGIL_PORT` (a wildcard host means this machine), or the defaults. */
export function envDaemonUrl(env: CliIo['env']): { url: string; source: UrlSource } {
  const hostText = nonEmpty(env['VIGIL_HOST']);
  const portText = nonEmpty(env['VIGIL_PORT']);
  let host = hostText ?? '127.0.0.1';
  if (host === '0.0.0.0') host = '127.0.0.1';
  if (host === '::' || host === '[::]') host = '::1';
  const port = portText ?? '7420';
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535 || Number(port) === 0) {
    throw new UsageError(
      `VIGIL_PORT=${JSON.stringify(port)} is invalid for a client: expected the daemon's port, 1 to 65535 (or pass --url).`,
    );
  }
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    url: `http://${bracketed}:${port}`,
    source: { kind: hostText === undefined && portText === undefined ? 'default' : 'env' },
  };
}

/** The daemon URL from `--url` alone, or undefined; throws UsageError when it is not a URL. */
function flagUrl(flags: ClientArgs['flags']): string | undefined {
  const explicit = nonEmpty(flags['url']);
  if (explicit === undefined) return undefined;
  try {
    return new URL(explicit).toString();
  } catch {
    throw new UsageError(`--url ${JSON.stringify(explicit)} is not a URL (expected e.g. http://127.0.0.1:7420).`);
  }
}

/**
 * Where the daemon is: `--url`; else the URL in the data dir's daemon.json while the process it names lives; else
 * `VIGIL_HOST`/`VIGIL_PORT` (a daemon.json whose process is gone is not trusted; a failure then says so).
 */
export async function resolveDaemonUrl(
  flags: ClientArgs['flags'],
  env: CliIo['env'],
  dataDir: string,
): Promise<{ url: string; source: UrlSource; daemonFile: DaemonFileRead | undefined }> {
  const explicit = flagUrl(flags);
  if (explicit !== undefined) return { url: explicit, source: { kind: 'flag' }, daemonFile: undefined };
  const daemonFile = await readDaemonFile(dataDir);
  if (daemonFile.kind === 'found' && daemonFile.alive) {
    return {
      url: daemonFile.info.url,
      source: { kind: 'daemon-file', path: daemonFile.path, pid: daemonFile.info.pid },
      daemonFile,
    };
  }
  return { ...envDaemonUrl(env), daemonFile };
}

/** The token: `--token`, else `VIGIL_TOKEN`, else the data dir's token file; CLIENT_NO_TOKEN when there is none. */
export async function resolveToken(
  flags: ClientArgs['flags'],
  env: CliIo['env'],
  dataDir: string,
): Promise<{ token: string; source: TokenSource }> {
  const flag = nonEmpty(flags['token']);
  if (flag !== undefined) return { token: flag, source: { kind: 'flag' } };
  const fromEnv = nonEmpty(env['VIGIL_TOKEN']);
  if (fromEnv !== undefined) return { token: fromEnv, source: { kind: 'env' } };
  const path = tokenFilePath(dataDir);
  const fromFile = await readTokenFile(dataDir);
  if (fromFile !== undefined) return { token: fromFile, source: { kind: 'file', path } };
  throw new VigilError(
    'CLIENT_NO_TOKEN',
    `No token file at ${path} (is the daemon running with this data dir?). Start it with \`${runCommandFor(dataDir)}\`, ` +
      `or give the running daemon's data dir with --data-dir, or its token with --token or VIGIL_TOKEN.`,
    { data: { tokenFile: path, dataDir } },
  );
}

/**
 * CONFIG_INVALID (exit 2) when the data dir the command reads is a file: its daemon.json and token could never be
 * there, and "no token file" would send the user looking for a daemon. A missing directory is left to the token
 * file's own error, which says how to start the daemon there.
 */
async function assertDataDirNotAFile(flags: ClientArgs['flags'], dataDir: string): Promise<void> {
  let isFile: boolean;
  try {
    isFile = !(await stat(dataDir)).isDirectory();
  } catch {
    return;
  }
  if (!isFile) return;
  const origin = nonEmpty(flags['data-dir']) === undefined ? 'VIGIL_DATA_DIR' : '--data-dir';
  throw new VigilError(
    'CONFIG_INVALID',
    `The data dir ${dataDir} (${origin}) is a file, not a directory: give the directory the daemon runs on ` +
      `(\`vigil run --data-dir D\`), or its address and token with --url and --token.`,
    { data: { variable: 'VIGIL_DATA_DIR', value: dataDir } },
  );
}

/** Resolves where the daemon is and which token to present (usage errors first, then the files). */
export async function resolveTarget(args: ClientArgs, io: CliIo): Promise<DaemonTarget> {
  const dataDir = clientDataDir(args.flags, io.env);
  // Only a data dir that will be read: with --url and a token given, it is not.
  const tokenGiven = nonEmpty(args.flags['token']) ?? nonEmpty(io.env['VIGIL_TOKEN']);
  if (flagUrl(args.flags) === undefined || tokenGiven === undefined) await assertDataDirNotAFile(args.flags, dataDir);
  const { url, source: urlSource, daemonFile } = await resolveDaemonUrl(args.flags, io.env, dataDir);
  const { token, source: tokenSource } = await resolveToken(args.flags, io.env, dataDir);
  return { url, urlSource, token, tokenSource, dataDir, daemonFile };
}

/** How to connect: the URL and token `resolveTarget` finds. */
export async function clientOptions(args: ClientArgs, io: CliIo): Promise<ConnectOptions> {
  const { url, token } = await resolveTarget(args, io);
  return { url, token };
}
