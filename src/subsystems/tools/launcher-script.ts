/**
 * The launcher every stdio MCP server runs under, so no server outlives the daemon: a few lines of plain JavaScript
 * run as `node -e`, which start the server in a process group of its own, handing it the daemon's pipes directly.
 *
 * Why a launcher: Linux has `prctl(PR_SET_PDEATHSIG)` but Node cannot call it, and a server may ignore the end of its
 * stdin. The server inherits the launcher's stdin and stdout (the daemon's pipes), so nothing relays its messages and
 * a tool call costs no extra process hops; when the daemon dies, even by `kill -9`, the server sees its stdin end. The
 * launcher notices its parent is gone (its parent pid changes: checked every `ORPHAN_CHECK_MS`), waits `GRACE_MS` for
 * the server to leave by itself, and then sends SIGTERM and SIGKILL to the server's whole process group (an `npx`
 * server's grandchildren included). It is run with `node -e`, not from a file, so it works alike from the TypeScript
 * sources (tsx), the compiled package and the tests, with nothing to resolve on disk.
 */

import { umaskBeforePrivate } from '../../shared/private-files.js';

/** How long the server gets after its stdin ends before SIGTERM, and after SIGTERM before SIGKILL. */
export const LAUNCHER_GRACE_MS = 1000;

/** How often the launcher checks that the daemon that started it is still its parent. */
export const LAUNCHER_ORPHAN_CHECK_MS = 200;

/** The prefix of the lines the launcher itself writes to stderr. */
export const LAUNCHER_TAG = 'vigil-mcp-launcher';

// Plain CommonJS-free JavaScript for `node -e`: argv is [node, umask, command, ...args]. No template placeholders inside.
const SOURCE = String.raw`
const { spawn } = require('node:child_process');
const GRACE_MS = __GRACE_MS__;
const ORPHAN_CHECK_MS = __ORPHAN_CHECK_MS__;
const TAG = '__TAG__';
const [umask, command, ...args] = process.argv.slice(1);
// The umask the daemon was started with (it keeps 077 for its data dir): a server's files are the operator's to share.
if (umask !== '') process.umask(Number.parseInt(umask, 8));
const parent = process.ppid;
let ending = false;
const say = (line) => { try { process.stderr.write(TAG + ': ' + line + '\n'); } catch {} };
// detached: the server leads a new session and process group, so one kill reaches everything it started. It gets the
// daemon's pipes themselves; the launcher never reads its own stdin (that would take the server's messages).
const child = spawn(command, args, { stdio: 'inherit', detached: true });
const group = (signal) => { try { process.kill(-child.pid, signal); } catch {} };
function end(why) {
  if (ending) return;
  ending = true;
  setTimeout(() => {
    group('SIGTERM');
    // After SIGKILL, 'close' exits once the server is reaped (no zombie is left to init); the timer only bounds that.
    setTimeout(() => { group('SIGKILL'); setTimeout(() => process.exit(1), GRACE_MS); }, GRACE_MS);
  }, why === 'signal' ? 0 : GRACE_MS);
}
child.on('error', (err) => { say('cannot start ' + JSON.stringify(command) + ': ' + err.message); process.exit(127); });
let status = 1;
child.on('exit', (code, signal) => {
  say(signal ? 'the server was killed by ' + signal : 'the server exited with code ' + code);
  status = code === null ? 1 : code;
  // Whatever it left running in its group goes too; their hold on its stdout would keep 'close' from coming.
  group('SIGKILL');
});
child.on('close', () => process.exit(status));
process.on('SIGTERM', () => end('signal'));
process.on('SIGHUP', () => end('signal'));
// Ctrl-C reaches the daemon's whole process group: the daemon decides when its servers stop, not the terminal.
process.on('SIGINT', () => {});
setInterval(() => { if (process.ppid !== parent) end('orphaned'); }, ORPHAN_CHECK_MS).unref();
`
  .replace('__GRACE_MS__', String(LAUNCHER_GRACE_MS))
  .replace('__ORPHAN_CHECK_MS__', String(LAUNCHER_ORPHAN_CHECK_MS))
  .replace('__TAG__', LAUNCHER_TAG);

/**
 * The command line that runs `command args` under the launcher: `node -e <launcher> -- UMASK command …args`. UMASK
 * (octal, or empty to keep the daemon's) is the one the server gets: by default the umask `vigil run` was started with.
 */
export function launcherCommand(
  command: string,
  args: readonly string[] = [],
  umask: number | undefined = umaskBeforePrivate(),
): { command: string; args: string[] } {
  return { command: process.execPath, args: ['-e', SOURCE, '--', umask?.toString(8) ?? '', command, ...args] };
}
