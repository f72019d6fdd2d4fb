/** `vigil send` in-process against a real gateway in simulated time: the reply, the unanswered reason, --no-wait, --timeout. */
import { afterEach, describe, expect, it } from 'vitest';
import { parseSendArgs } from '../../src/client/commands/send.command.js';
import { VigilError } from '../../src/errors.js';
import { startGatewayHarness, type GatewayHarness } from '../gateway/gateway.fixture.js';
import { ScriptedThinker, type Script } from '../fixtures/scripted-thinker.js';
import { runCli } from './cli-run.fixture.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(script?: Script): Promise<GatewayHarness> {
  h = await startGatewayHarness({ runtime: { thinker: new ScriptedThinker(script) } });
  return h;
}

describe('vigil send', () => {
  it('prints the reply to this turn and exits 0; several words are one message', async () => {
    const harness = await start();
    const { code, stdout, stderr } = await runCli(harness, ['send', 'hello', 'there']);
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: 're: hello there\n', stderr: '' });
    expect(harness.ofType('agent.reply')).toMatchObject([{ text: 're: hello there' }]);
  });

  it('prints the agent.unanswered reason on stderr and exits 1', async () => {
    const harness = await start(() => {
      throw new VigilError('THINK_REJECTED', 'prompt is too long: 250000 tokens > 200000 maximum');
    });
    const { code, stdout, stderr } = await runCli(harness, ['send', 'a very long question']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^vigil: the agent did not answer \(THINK_REJECTED\): .*prompt is too long/);
  });

  it('prints the turnId at once with --no-wait; the turn is answered all the same', async () => {
    const harness = await start();
    const { code, stdout } = await runCli(harness, ['send', 'later', '--no-wait']);
    expect(code).toBe(0);
    const turnId = stdout.trim();
    expect(turnId).toMatch(/\S/);
    for (let i = 0; i < 100 && harness.ofType('agent.reply').length === 0; i += 1) await harness.advance(100);
    expect(harness.ofType('agent.reply')).toMatchObject([{ turnId, text: 're: later' }]);
  });

  it('gives up after --timeout S without an ending, exit 1 naming the open turn', async () => {
    // The model never answers while the command waits; it is let go afterwards, so the runtime can stop.
    const hung: Array<() => void> = [];
    let holding = true;
    const harness = await start(() => (holding ? new Promise((resolve) => hung.push(() => resolve([]))) : []));
    const { code, stdout, stderr } = await runCli(harness, ['send', 'anyone?', '--timeout', '5'], {
      env: {
        VIGIL_HOST: '127.0.0.1',
        VIGIL_PORT: new URL(harness.gateway.url).port,
        VIGIL_TOKEN: 'test-token-0123456789abcdef',
        VIGIL_DATA_DIR: '/nonexistent/vigil-test',
      },
      timers: harness.clock,
    });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^vigil: no answer within 5 s \(--timeout\)\. Turn \S+ is still open: its answer will show in `vigil conversation`\.\n$/,
    );
    holding = false;
    for (const release of hung.splice(0)) release();
  });

  it('does not miss a reply that is written before its subscription is in place', async () => {
    // The reply to an earlier turn is in the journal; the new turn's reply must be told apart and not missed.
    const harness = await start();
    expect((await runCli(harness, ['send', 'first'])).stdout).toBe('re: first\n');
    expect((await runCli(harness, ['send', 'second'])).stdout).toBe('re: second\n');
  });
});

describe('parseSendArgs', () => {
  it.each([
    [[], /needs the TEXT/],
    [['  '], /needs the TEXT/],
    [['hi', '--timeout', '0'], /--timeout must be a number of seconds above 0/],
    [['hi', '--timeout', 'soon'], /--timeout must be a number of seconds/],
    [['hi', '--timeout', '1e3'], /--timeout must be a number of seconds/],
    [['hi', '--timeout', '5', '--no-wait'], /--no-wait does not wait/],
    [['hi', '--colour'], /Unknown option/],
  ])('refuses %j as bad usage', (argv, message) => {
    expect(() => parseSendArgs(argv)).toThrow(message);
  });

  it('reads the text, the wait and the timeout in milliseconds', () => {
    expect(parseSendArgs(['hi', 'you', '--timeout', '1.5', '--from', 'ops']).request).toEqual({
      text: 'hi you',
      from: 'ops',
      wait: true,
      timeoutMs: 1500,
    });
    expect(parseSendArgs(['hi', '--no-wait']).request).toEqual({
      text: 'hi',
      from: undefined,
      wait: false,
      timeoutMs: undefined,
    });
  });

  it('exits 2 with the usage for bad usage', async () => {
    const harness = await start();
    const { code, stderr } = await runCli(harness, ['send']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/usage: vigil send TEXT/);
  });
});
