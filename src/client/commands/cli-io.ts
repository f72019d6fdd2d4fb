/** What the client commands read and write: the environment, stdout, stderr, files, and the user's interrupt. */
import { readFile, writeFile } from 'node:fs/promises';

/** The command line's world, injectable so tests run commands in-process. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout(text: string): void;
  stderr(text: string): void;
  readFile(path: string): Promise<string>;
  /** Writes a file only its owner can read (exports hold the conversation). */
  writeFile(path: string, text: string): Promise<void>;
  /** Resolves when the user interrupts (SIGINT/SIGTERM); listens only once asked. */
  interrupted(): Promise<void>;
}

/** The real process. */
export function processIo(): CliIo {
  return {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readFile: (path) => readFile(path, 'utf8'),
    writeFile: (path, text) => writeFile(path, text, { mode: 0o600 }),
    interrupted: () =>
      new Promise((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      }),
  };
}

/** A usage mistake: the message is printed with the usage and the exit code is 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
