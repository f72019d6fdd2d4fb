/**
 * The launcher every stdio MCP server runs under, so no server outlives the daemon: a few lines of plain JavaScript
 * run as `node -e`, which start the server in a process group of its own and relay its stdin and stdout.
 *
 * Why a launcher: Linux has `prctl(PR_SET_PDEATHSIG)` but Node cannot call it, and a server may ignore the end of its
 * stdin. The launcher's stdin is the daemon's pipe, so the kernel ends it when the daemon dies, even by `kill -9`;
 * the launcher then closes the server's stdin, waits `GRACE_MS`, and sends SIGTERM and then SIGKILL to the server's
 * whole process group (an `npx` server's grandchildren included). A changed parent pid means the same (belt and
 * braces: it is checked every second). It is run with `node -e`, not from a file, so it works alike from the
 * TypeScript sources (tsx), the compiled package and the tests, with nothing to resolve on disk.
 */

/** How long the server gets after its stdin ends before SIGTERM, and after SIGTERM before SIGKILL. */
export const LAUNCHER_GRACE_MS = 1000;

/** The prefix of the lines the launcher itself writes to stderr. */
export const LAUNCHER_TAG = 'vigil-mcp-launcher';

// Plain CommonJS-free JavaScript for `node -e`: argv is [node, command, ...args]. No template placeholders inside.
const SOURCE = String.raw`
const { spawn } = require('node:child_process');
const GRACE_MS = __GRACE_MS__;
const TAG = '__TAG__';
const [command, ...args] = process.argv.slice(1);
const parent = process.ppid;
let ending = false;
const say = (line) => { try { process.stderr.write(TAG + ': ' + line + '\n'); } catch {} };
// detached: the server leads a new session and process group, so one kill reaches everything it started.
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'], detached: true });
const group = (signal) => { try { process.kill(-child.pid, signal); } catch {} };
function end(why) {
  if (ending) return;
  ending = true;
  try { child.stdin.end(); } catch {}
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
// On 'close', not 'exit': by then everything the server wrote has been relayed.
child.on('close', () => process.exit(status));
child.stdin.on('error', () => {});
process.stdout.on('error', () => end('stdout'));
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
process.stdin.on('end', () => end('eof'));
process.stdin.on('error', () => end('eof'));
process.on('SIGTERM', () => end('signal'));
process.on('SIGHUP', () => end('signal'));
// Ctrl-C reaches the daemon's whole process group: the daemon decides when its servers stop, not the terminal.
process.on('SIGINT', () => {});
setInterval(() => { if (process.ppid !== parent) end('orphaned'); }, 1000).unref();
`
  .replace('__GRACE_MS__', String(LAUNCHER_GRACE_MS))
  .replace('__TAG__', LAUNCHER_TAG);

/** The command line that runs `command args` under the launcher: `node -e <launcher> -- command …args`. */
export function launcherCommand(command: string, args: readonly string[] = []): { command: string; args: string[] } {
  return { command: process.execPath, args: ['-e', SOURCE, '--', command, ...args] };
}
