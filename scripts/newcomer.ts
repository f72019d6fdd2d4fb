/**
 * The README's first five minutes, typed as a newcomer types them, and every hint the daemon prints, run as printed.
 *
 *   node --import tsx scripts/newcomer.ts            a fresh clone of HEAD in a temporary directory: npm ci, then the run
 *   node --import tsx scripts/newcomer.ts --here     this checkout as it is (built, installed)
 *
 * The run: `npm start` (its data dir a temporary one, its port any free one, so it cannot meet a daemon already running
 * here), the one line it prints for a person, then each command that line names and each `npx vigil …` of the README's
 * "first five minutes", in a shell as typed (with `--data-dir` added to the README's, which assume ./data). A command
 * passes when it exits 0 and prints what it says it will; the dashboard's link must sign a browser in. Exit 0 when
 * every step passed, 1 otherwise, with a line per step. test/e2e/newcomer.test.ts runs it on every `npm test`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One command of the run and how it went. */
export interface NewcomerStep {
  /** As a person types it. */
  command: string;
  ok: boolean;
  /** What it printed, or why it failed (one short line). */
  detail: string;
}

/** Where to run. */
export interface NewcomerOptions {
  /** The checkout: built and installed. */
  checkout: string;
  /** An empty directory for the daemon's data. */
  dataDir: string;
  /** How long the daemon may take to print its line, and each command to end (default 60 s). */
  timeoutMs?: number;
  /** Told the process group of `npm start` once it runs (a test kills it if the run itself is given up). */
  onStart?: (processGroup: number) => void;
}

/**
 * A clean environment, as a new terminal has: no VIGIL_* variables (only what a command says counts), and none of the
 * npm_* variables of an npm script this may run under (an `npx` that sees them runs in that script's context).
 */
function terminalEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VIGIL_|npm_)/i.test(name)));
}

/** Runs `command` in a shell in `cwd`; resolves with its exit code and output (killed after `timeoutMs`). */
function shell(
  command: string,
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string; killed: boolean }> {
  return new Promise((done) => {
    // Its own process group, so that Ctrl-C (SIGINT to the group) reaches npx and the command it runs.
    const child = spawn('sh', ['-c', command], {
      cwd,
      env: terminalEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      killed = true;
      process.kill(-child.pid!, 'SIGINT');
    }, timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, killed });
    });
  });
}

/** The commands a daemon's line for a person names: `npx vigil …` or `vigil …`, each up to its sentence's end. */
export function hintedCommands(line: string): string[] {
  return [...line.matchAll(/\b((?:npx )?vigil [^(]+?)(?= \(|\. [A-Z]|\.$)/g)].map((match) => match[1]!);
}

/** The `npx vigil …` lines of the README's "The first five minutes", comments cut. */
export function readmeCommands(readme: string): string[] {
  const section = /## The first five minutes\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
  return section
    .split('\n')
    .map((line) => line.trim().replace(/\s+#.*$/, ''))
    .filter((line) => line.startsWith('npx vigil '));
}

/** Adds `--data-dir D` to a command that has none (the README's assume ./data). */
function withDataDir(command: string, dataDir: string): string {
  return command.includes('--data-dir') ? command : `${command} --data-dir ${dataDir}`;
}

/** What a command must have done, beyond exiting 0. */
async function judge(command: string, out: { stdout: string; killed: boolean }): Promise<string | null> {
  if (/ dashboard\b/.test(command)) {
    const link = out.stdout.trim();
    if (!/^https?:\/\/\S+\?signin=/.test(link)) return `printed no sign-in link: ${JSON.stringify(link)}`;
    const answer = await fetch(link, { redirect: 'manual' });
    if (answer.status !== 303 || answer.headers.get('set-cookie') === null)
      return `the link did not sign a browser in (HTTP ${answer.status})`;
    return null;
  }
  if (/ events\b/.test(command)) return out.stdout.trim() === '' ? 'printed no event' : null;
  return out.stdout.trim() === '' ? 'printed nothing' : null;
}

/** The run; resolves with every step (the daemon's start and stop among them). */
export async function runNewcomer({
  checkout,
  dataDir,
  timeoutMs = 60_000,
  onStart,
}: NewcomerOptions): Promise<NewcomerStep[]> {
  const steps: NewcomerStep[] = [];
  // Its own process group, as a terminal's foreground job: Ctrl-C reaches npm and the daemon together.
  const daemon = spawn('npm', ['start'], {
    cwd: checkout,
    env: { ...terminalEnv(), VIGIL_DATA_DIR: dataDir, VIGIL_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (daemon.pid !== undefined) onStart?.(daemon.pid);
  // The daemon's JSON log: its last line says whether it stopped cleanly.
  let log = '';
  daemon.stdout.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  let stderr = '';
  const line = await new Promise<string | null>((done) => {
    const timer = setTimeout(() => done(null), timeoutMs);
    daemon.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const found = /^Vigil is listening.*$/m.exec(stderr);
      if (found !== null) {
        clearTimeout(timer);
        done(found[0]);
      }
    });
    daemon.once('exit', () => done(null));
  });
  steps.push({
    command: 'npm start',
    ok: line !== null,
    detail: line ?? `no "Vigil is listening" line: ${stderr.slice(-300)}`,
  });
  try {
    if (line === null) return steps;
    const readme = readFileSync(join(checkout, 'README.md'), 'utf8');
    const commands = [
      ...hintedCommands(line),
      ...readmeCommands(readme).map((command) => withDataDir(command, dataDir)),
    ];
    if (hintedCommands(line).length < 3)
      steps.push({ command: '(the hints)', ok: false, detail: `fewer than three commands in: ${line}` });
    for (const command of commands) {
      // `vigil events` runs until interrupted: a few seconds of it, then Ctrl-C, as a person would.
      const long = / events\b/.test(command);
      const out = await shell(command, checkout, long ? 5000 : timeoutMs);
      const exitedWell = out.code === 0 || (long && out.killed);
      const failure = exitedWell
        ? await judge(command, out)
        : `exit ${out.code}: ${out.stderr.trim().split('\n').at(-1) ?? ''}`;
      steps.push({
        command,
        ok: failure === null,
        detail: failure ?? out.stdout.trim().split('\n')[0]!.slice(0, 120),
      });
    }
  } finally {
    const exited = new Promise<void>((done) => daemon.once('close', () => done()));
    if (daemon.exitCode === null && daemon.signalCode === null) process.kill(-daemon.pid!, 'SIGINT');
    await exited;
    // npm itself ends by the SIGINT it was sent (a shell says 130); what counts is that the daemon stopped cleanly.
    const stopped = /"msg":"stopped"/.test(log);
    steps.push({
      command: 'Ctrl-C',
      ok: stopped,
      detail: stopped
        ? 'the daemon finished its beat, wrote its checkpoint and stopped'
        : `no "stopped": ${log.slice(-300)}`,
    });
  }
  return steps;
}

async function main(): Promise<number> {
  const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
  const work = mkdtempSync(join(tmpdir(), 'vigil-newcomer-'));
  try {
    let checkout = root;
    if (!process.argv.includes('--here')) {
      checkout = join(work, 'vigil');
      for (const [command, args] of [
        ['git', ['clone', '--quiet', root, checkout]],
        ['npm', ['ci', '--no-audit', '--no-fund']],
      ] as const) {
        const done = spawnSync(command, args, { cwd: command === 'git' ? root : checkout, stdio: 'inherit' });
        if (done.status !== 0) return 1;
      }
    }
    const steps = await runNewcomer({ checkout, dataDir: join(work, 'data') });
    for (const step of steps) process.stdout.write(`${step.ok ? 'ok  ' : 'FAIL'}  ${step.command}  — ${step.detail}\n`);
    return steps.every((step) => step.ok) ? 0 : 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = await main();
