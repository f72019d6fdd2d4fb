import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { CliIo } from '../../src/client/commands/cli-io.js';
import { failureReport, wantsStacks } from '../../src/shared/failure-report.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from '../gateway/gateway.fixture.js';

const STACK_FRAME = /^\s+at /m;

describe('failureReport', () => {
  it('is one line without debug, and adds the stack of the error and its causes with VIGIL_LOG_LEVEL=debug or trace', () => {
    const err = new Error('outer', { cause: new Error('inner') });
    expect(failureReport(err, {})).toBe('vigil: outer\n');
    expect(failureReport(err, { VIGIL_LOG_LEVEL: 'info' })).toBe('vigil: outer\n');
    const debug = failureReport(err, { VIGIL_LOG_LEVEL: 'debug' });
    expect(debug).toMatch(/^vigil: outer\nError: outer\n\s+at /);
    expect(debug).toMatch(/\ncaused by: Error: inner\n\s+at /);
    expect(wantsStacks({ VIGIL_LOG_LEVEL: ' TRACE ' })).toBe(true);
    expect(failureReport('a string thrown', { VIGIL_LOG_LEVEL: 'debug' })).toBe(
      'vigil: a string thrown\na string thrown\n',
    );
  });
});

describe('an error no command expects', () => {
  let h: GatewayHarness;
  beforeEach(async () => {
    h = await startGatewayHarness();
    // Loaded before `until` runs, so the import costs no simulated time.
    await import('../../src/client/commands/rpc.command.js');
  });
  afterEach(() => h.close());

  /** `vigil rpc heartbeat.status` whose stdout fails as a closed descriptor would. */
  async function rpcWithBrokenStdout(env: Record<string, string> = {}) {
    let stderr = '';
    const { port } = new URL(h.gateway.url);
    const io: CliIo = {
      env: { VIGIL_HOST: '127.0.0.1', VIGIL_PORT: port, VIGIL_TOKEN: TEST_TOKEN, ...env },
      stdout: () => {
        throw new Error('stdout is gone');
      },
      stderr: (text) => (stderr += text),
      readFile: () => Promise.reject(new Error('no files here')),
      writeFile: () => Promise.reject(new Error('no files here')),
      interrupted: () => new Promise(() => undefined),
    };
    const code = await h.until(main(['rpc', 'heartbeat.status'], io));
    return { code, stderr };
  }

  it('is printed as one line, exit 1, with no stack', async () => {
    expect(await rpcWithBrokenStdout()).toEqual({ code: 1, stderr: 'vigil: stdout is gone\n' });
  });

  it('comes with its stack when VIGIL_LOG_LEVEL=debug', async () => {
    const { code, stderr } = await rpcWithBrokenStdout({ VIGIL_LOG_LEVEL: 'debug' });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^vigil: stdout is gone\nError: stdout is gone\n/);
    expect(stderr).toMatch(STACK_FRAME);
  });
});
