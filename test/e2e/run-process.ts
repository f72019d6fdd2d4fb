/** Runs a short-lived child process (a client command, an example, npm) to completion and collects its output. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The checkout's root, where examples and bin/ live. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What a finished process left behind. */
export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Where and how long a process runs. */
export interface RunOptions {
  /** Working directory (default: the checkout's root). */
  cwd?: string;
  /** Added to a clean environment (PATH and HOME only). */
  env?: Record<string, string>;
  /** Safety bound: the process is killed and the run fails after this long (default 60 s). */
  timeoutMs?: number;
}

/** Runs `command args` with `env` added to a clean environment; fails after a safety timeout. */
export function runProcess(command: string, args: string[], options: RunOptions = {}): Promise<Finished> {
  const { cwd = ROOT, env = {}, timeoutMs = 60_000 } = options;
  const child = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `${command} ${args.join(' ')} did not finish in ${timeoutMs} ms; stdout: ${stdout}; stderr: ${stderr}`,
        ),
      );
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs `node <args>` in the checkout with `env` added to a clean environment; fails after a safety timeout. */
export function runNode(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Finished> {
  return runProcess(process.execPath, args, { env, timeoutMs });
}
