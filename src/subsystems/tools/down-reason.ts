/**
 * What `mcp.server_down.reason` may say. Read tokens see that event, so it holds only what Vigil itself knows: how the
 * process ended (the launcher's own line: the exit code or signal, or why it could not start) and the class of the
 * error met (with its code). Never the server's words: the last lines of a chatty server's stderr, or the message of
 * an error it answered, can carry a secret; they go to the log at debug level only.
 */
import { LAUNCHER_TAG } from './launcher-script.js';

const LAUNCHER_PREFIX = `${LAUNCHER_TAG}: `;
// The launcher's lines, matched exactly: the server shares the launcher's stderr and could print a look-alike, so
// nothing but a code, a signal name or an errno passes.
const EXITED = /^the server exited with code (-?\d+)$/;
const KILLED = /^the server was killed by (SIG[A-Z0-9]+)$/;
const NOT_STARTED = /^cannot start .*\b(E[A-Z]+)$/;

/** How the server ended, from the newest launcher line among `lines` (its exit code, signal or errno); undefined if none. */
export function launcherStatus(lines: readonly string[]): string | undefined {
  for (const line of [...lines].reverse()) {
    if (!line.startsWith(LAUNCHER_PREFIX)) continue;
    const said = line.slice(LAUNCHER_PREFIX.length);
    const exited = EXITED.exec(said);
    if (exited !== null) return `the server exited with code ${exited[1]}`;
    const killed = KILLED.exec(said);
    if (killed !== null) return `the server was killed by ${killed[1]}`;
    const failed = NOT_STARTED.exec(said);
    if (failed !== null) return `the server's command cannot start (${failed[1]})`;
  }
  return undefined;
}

function codeOf(value: unknown): string | undefined {
  const code = (value as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' || typeof code === 'number' ? String(code) : undefined;
}

/**
 * An error's class and code, never its message (`McpError -32000`, `TypeError ECONNREFUSED` for a refused fetch,
 * whose code is on its cause). The message of an error the server answered is the server's text.
 */
export function errorClass(err: unknown): string {
  if (!(err instanceof Error)) return typeof err;
  const name = err.name !== 'Error' ? err.name : err.constructor.name;
  const code = codeOf(err) ?? codeOf(err.cause);
  return code === undefined ? name : `${name} ${code}`;
}

/** `reason`, with how the process ended when the launcher said so. */
export function downReason(reason: string, stderrLines: readonly string[]): string {
  const ended = launcherStatus(stderrLines);
  return ended === undefined ? reason : `${reason}; ${ended}`;
}
