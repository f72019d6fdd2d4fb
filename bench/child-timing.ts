/** Wall-clock timing of child processes, from spawn to exit or to a given stdout line, in a clean environment. */
import { spawn, type ChildProcess } from 'node:child_process';

/** A finished run: how long it took and what it printed. */
export interface TimedExit {
  ms: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A process that printed the awaited line: how long that took, the parsed line, and the still running child. */
export interface TimedLine {
  ms: number;
  line: Record<string, unknown>;
  child: ChildProcess;
  exited: Promise<number | null>;
}

const cleanEnv = (env: Record<string, string>): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/tmp',
  ...env,
});

/** Runs `node args` to its end; `ms` is spawn to exit. */
export function timeToExit(args: readonly string[], env: Record<string, string> = {}): Promise<TimedExit> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve({ ms: performance.now() - started, code, stdout, stderr }));
  });
}

/**
 * Starts `node args` and resolves once it prints a JSON log line for which `match` holds; `ms` is spawn to that
 * line. Rejects if the process exits first or takes longer than `timeoutMs`.
 */
export function timeToLine(
  args: readonly string[],
  match: (line: Record<string, unknown>) => boolean,
  env: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<TimedLine> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no matching line within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    let buffered = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const ms = performance.now() - started;
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const text of lines) {
        let line: Record<string, unknown>;
        try {
          line = JSON.parse(text) as Record<string, unknown>;
        } catch {
          continue;
        }
        if (match(line)) {
          clearTimeout(timer);
          resolve({ ms, line, child, exited });
          return;
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before the awaited line; stderr: ${stderr}`));
    });
  });
}
