/** `vigil mcp`'s start: only an address that is not one exits 2; a data dir without a token file is served anyway. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/client/commands/cli-io.js';
import { MCP_USAGE, mcpCommand } from '../../src/client/commands/mcp.command.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-mcp-command-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs `vigil mcp argv` in-process with a host that closes stdin at once; its exit code and stderr. */
async function run(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const io = { env, stderr: (text: string) => (stderr += text), stdout: () => undefined } as unknown as CliIo;
  const stdin = new PassThrough();
  stdin.end();
  const code = await mcpCommand(argv, io, stdin, new PassThrough());
  return { code, stderr };
}

describe('vigil mcp at start', () => {
  it('exits 2 with the usage line for a --url that is not a URL', async () => {
    const { code, stderr } = await run(['--url', 'not a url', '--token', 't']);
    expect(code).toBe(2);
    expect(stderr).toBe(`vigil: --url "not a url" is not a URL (expected e.g. http://127.0.0.1:7420).\n${MCP_USAGE}\n`);
  });

  it('serves a data dir with no token file yet until the host closes stdin (exit 0), no stack trace', async () => {
    const { code, stderr } = await run(['--data-dir', join(dir, 'empty')], { VIGIL_PORT: '9' });
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/^ {4}at /m);
  });
});
