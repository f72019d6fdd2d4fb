/** Runs a short-lived child process (a client command or an example) to completion and collects its output. */
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

/** Runs `node <args>` in the checkout with `env` added to a clean environment; fails after a safety timeout. */
export function runNode(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Finished> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
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
      reject(new Error(`node ${args.join(' ')} did not finish in ${timeoutMs} ms; stdout: ${stdout}; stderr: ${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
