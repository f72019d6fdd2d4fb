/** What the client commands read and write: the environment, stdout, stderr, files, the user's interrupt, and timers. */
import { readFile } from 'node:fs/promises';
import { writePrivateFile } from './private-file.js';

/** The command line's world, injectable so tests run commands in-process. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout(text: string): void;
  stderr(text: string): void;
  readFile(path: string): Promise<string>;
  /** Writes a regular file only its owner can read (exports hold the conversation), replacing, never following, what is there. */
  writeFile(path: string, text: string): Promise<void>;
  /** Resolves when the user interrupts (SIGINT/SIGTERM); listens only once asked. */
  interrupted(): Promise<void>;
  /** Stdout is a terminal (the daemon then logs human lines instead of JSON); unset: not one. */
  stdoutIsTerminal?: boolean;
  /** The timers a command's own time limit runs on (`vigil send --timeout`); unset: Node's. Tests pass a simulated clock. */
  timers?: CliTimers;
}

/** Starting and cancelling a timer (a `Clock`'s two timer methods, without loading the clock module). */
export interface CliTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node's timers. */
export const nodeTimers: CliTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** The real process. */
export function processIo(): CliIo {
  return {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readFile: (path) => readFile(path, 'utf8'),
    writeFile: writePrivateFile,
    interrupted: () =>
      new Promise((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      }),
    stdoutIsTerminal: process.stdout.isTTY === true,
    timers: nodeTimers,
  };
}

/** A usage mistake: the message is printed with the usage and the exit code is 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
