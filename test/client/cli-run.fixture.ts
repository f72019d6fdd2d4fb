/** Runs `vigil …` in-process against a test gateway, advancing its simulated time until the command exits. */
import { readFile, writeFile } from 'node:fs/promises';
import { main } from '../../src/cli.js';
import type { CliIo, CliTimers } from '../../src/client/commands/cli-io.js';
import { TEST_TOKEN, type GatewayHarness } from '../gateway/gateway.fixture.js';

/** How to run: the environment (default: the gateway's host, port and token) and the command's timers. */
export interface RunCliOptions {
  /** The whole environment instead of the gateway's host, port and token. */
  env?: Record<string, string | undefined>;
  /** Timers for the command's own time limits (default: Node's). */
  timers?: CliTimers;
  /** Stdout is a terminal (default: not one). */
  stdoutIsTerminal?: boolean;
}

/** The command's exit code and what it printed. */
export async function runCli(
  h: GatewayHarness,
  argv: string[],
  options: RunCliOptions = {},
): Promise<{ code: number; stdout: string; stderr: string; writes: string[] }> {
  let stdout = '';
  let stderr = '';
  // Each write to stdout, to see what was printed piece by piece.
  const writes: string[] = [];
  const { port } = new URL(h.gateway.url);
  const io: CliIo = {
    // A data dir nobody uses, so no daemon.json in the checkout's ./data is ever read by a test.
    env: options.env ?? {
      VIGIL_HOST: '127.0.0.1',
      VIGIL_PORT: port,
      VIGIL_TOKEN: TEST_TOKEN,
      VIGIL_DATA_DIR: '/nonexistent/vigil-test',
    },
    stdout: (text) => {
      stdout += text;
      writes.push(text);
    },
    stderr: (text) => (stderr += text),
    readFile: (path) => readFile(path, 'utf8'),
    writeFile: (path, text) => writeFile(path, text),
    interrupted: () => new Promise(() => undefined),
    ...(options.timers === undefined ? {} : { timers: options.timers }),
    ...(options.stdoutIsTerminal === undefined ? {} : { stdoutIsTerminal: options.stdoutIsTerminal }),
  };
  const code = await h.until(main(argv, io));
  return { code, stdout, stderr, writes };
}
