/** Starts `vigil run` as a real child process and reads its JSON log lines. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/vigil.js', import.meta.url));

/** One parsed log line. */
export type LogLine = Record<string, unknown> & { msg?: string; level?: number };

/** A daemon child process under test. */
export interface DaemonProcess {
  proc: ChildProcess;
  lines: LogLine[];
  stderr: () => string;
  /** Resolves with the first log line (past or future) matching `predicate`. */
  waitFor(predicate: (line: LogLine) => boolean, timeoutMs?: number, what?: string): Promise<LogLine>;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  kill(signal: NodeJS.Signals): void;
}

/** Fast-beating settings for e2e runs. */
export const FAST_ENV = {
  VIGIL_BEAT_MS: '20',
  VIGIL_BEAT_MIN_MS: '10',
  VIGIL_BEAT_MAX_MS: '40',
  VIGIL_CHECKPOINT_INTERVAL_BEATS: '5',
  VIGIL_LOG_LEVEL: 'info',
};

/** Runs `vigil <args>` with `env` added to a clean environment. */
export function startDaemon(args: string[], env: Record<string, string> = {}): DaemonProcess {
  const proc = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  const waiters: Array<{ predicate: (line: LogLine) => boolean; resolve: (line: LogLine) => void }> = [];
  let stderr = '';
  let buffered = '';
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const text = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        line = { msg: text, unparsed: true };
      }
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.predicate(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  });
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | string>((resolve) =>
    proc.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return {
    proc,
    lines,
    stderr: () => stderr,
    exited,
    kill: (signal) => proc.kill(signal),
    waitFor(predicate, timeoutMs = 20_000, what = 'a log line') {
      const found = lines.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `timed out waiting for ${what}; stderr: ${stderr}; last lines: ${JSON.stringify(lines.slice(-5))}`,
              ),
            ),
          timeoutMs,
        );
        const waiter = {
          predicate,
          resolve: (line: LogLine) => {
            clearTimeout(timer);
            resolve(line);
          },
        };
        waiters.push(waiter);
        void exited.then((code) => {
          if (waiters.includes(waiter)) {
            clearTimeout(timer);
            reject(new Error(`daemon exited (${code}) before ${what}; stderr: ${stderr}`));
          }
        });
      });
    },
  };
}
