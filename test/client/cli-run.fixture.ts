/** Runs `vigil …` in-process against a test gateway, advancing its simulated time until the command exits. */
import { readFile, writeFile } from 'node:fs/promises';
import { main } from '../../src/cli.js';
import type { CliIo } from '../../src/client/commands/cli-io.js';
import { TEST_TOKEN, type GatewayHarness } from '../gateway/gateway.fixture.js';

/** The command's exit code and what it printed. */
export async function runCli(h: GatewayHarness, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const { port } = new URL(h.gateway.url);
  const io: CliIo = {
    env: { VIGIL_HOST: '127.0.0.1', VIGIL_PORT: port, VIGIL_TOKEN: TEST_TOKEN },
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readFile: (path) => readFile(path, 'utf8'),
    writeFile: (path, text) => writeFile(path, text),
    interrupted: () => new Promise(() => undefined),
  };
  const code = await h.until(main(argv, io));
  return { code, stdout, stderr };
}
