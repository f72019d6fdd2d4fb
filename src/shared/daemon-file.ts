/** Writing, reading and removing `DATA_DIR/daemon.json`, the running daemon's address for clients (CONTRACT §2). */
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DAEMON_FILE_NAME, DaemonFileSchema, type DaemonFile } from '../protocol/daemon-file.schema.js';
import { describeError } from '../errors.js';
import { PRIVATE_FILE_MODE } from './private-files.js';

/** Where the daemon file of `dataDir` lives. */
export function daemonFilePath(dataDir: string): string {
  return join(dataDir, DAEMON_FILE_NAME);
}

/**
 * The URL a client on this machine uses for a gateway bound to `url`: a wildcard address (`0.0.0.0`, `::`) accepts
 * connections on every interface, but is not an address to connect to, so it becomes loopback.
 */
export function clientReachableUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname === '0.0.0.0') parsed.hostname = '127.0.0.1';
  if (parsed.hostname === '[::]') parsed.hostname = '[::1]';
  return parsed.origin;
}

/**
 * Writes the file whole or not at all (a temporary file renamed over it), so a client never reads half of it. Mode
 * 0600 like every file of the data dir: a client that can use the data dir runs as its user.
 */
export async function writeDaemonFile(dataDir: string, info: DaemonFile): Promise<string> {
  const path = daemonFilePath(dataDir);
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify(DaemonFileSchema.parse(info), null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  try {
    await rename(temporary, path);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  return path;
}

/** Removes the file if it still names process `pid` (never a successor's); true when it was removed. */
export async function removeDaemonFile(dataDir: string, pid: number): Promise<boolean> {
  const found = await readDaemonFile(dataDir, () => true);
  if (found.kind !== 'found' || found.info.pid !== pid) return false;
  await rm(daemonFilePath(dataDir), { force: true });
  return true;
}

/** True while process `pid` exists (one of another user counts: signalling it is refused, not unknown). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What a client found: no file, a file it cannot use (and why), or the daemon's address with whether its pid lives. */
export type DaemonFileRead =
  | { kind: 'absent'; path: string }
  | { kind: 'invalid'; path: string; reason: string }
  | { kind: 'found'; path: string; info: DaemonFile; alive: boolean };

/** Reads and validates the file; `alive` tells whether the process it names still runs (injectable for tests). */
export async function readDaemonFile(
  dataDir: string,
  alive: (pid: number) => boolean = isProcessAlive,
): Promise<DaemonFileRead> {
  const path = daemonFilePath(dataDir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOTDIR: the data dir is a file, so no daemon uses it either.
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent', path };
    return { kind: 'invalid', path, reason: describeError(err) };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { kind: 'invalid', path, reason: `not JSON (${describeError(err)})` };
  }
  const parsed = DaemonFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { kind: 'invalid', path, reason: `${issue?.path.join('.') || '(file)'}: ${issue?.message ?? 'invalid'}` };
  }
  return { kind: 'found', path, info: parsed.data, alive: alive(parsed.data.pid) };
}
