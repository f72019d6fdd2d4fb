/**
 * `vigil send` on a terminal: the reply printed piece by piece as the model writes it (`agent.reply_delta`), ended by
 * the final `agent.reply` without printing it twice; piped, the final reply once. In-process against a real gateway
 * with a thinker that streams, the terminal an injected flag and the output a recorded writer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { VigilError } from '../../src/errors.js';
import type { ReplyStream } from '../../src/subsystems/thinking/thinker.js';
import { ScriptedThinker, type Script } from '../fixtures/scripted-thinker.js';
import { startGatewayHarness, type GatewayHarness } from '../gateway/gateway.fixture.js';
import { runCli } from './cli-run.fixture.js';

const PIECES = ['High water ', 'at 06:12', ' and 18:40.'];
const TEXT = PIECES.join('');

/** A scripted thinker that streams: `stream` is the runtime's, for the script to write pieces to. */
class StreamingThinker extends ScriptedThinker {
  stream: ReplyStream | undefined;
  useReplyStream(stream: ReplyStream): void {
    this.stream = stream;
  }
}

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Each think streams `pieces` (while wanted) to every pending turn, then replies with `final`. */
function streaming(thinker: () => StreamingThinker, pieces: readonly string[], final = pieces.join('')): Script {
  return (input) =>
    input.pendingMessages.map((m) => {
      const stream = thinker().stream;
      if (stream?.wanted() === true) for (const piece of pieces) stream.delta(m.turnId, piece);
      return { type: 'reply' as const, turnId: m.turnId, text: final };
    });
}

async function start(script: (thinker: () => StreamingThinker) => Script): Promise<GatewayHarness> {
  const thinker: StreamingThinker = new StreamingThinker();
  thinker.script = script(() => thinker);
  h = await startGatewayHarness({ runtime: { thinker } });
  return h;
}

describe('vigil send streaming to a terminal', () => {
  it('prints the reply as it is written, each piece as it comes, and ends with the rest of the final text', async () => {
    const harness = await start((t) => streaming(t, PIECES));
    const { code, stdout, stderr, writes } = await runCli(harness, ['send', 'tides?'], { stdoutIsTerminal: true });
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: `${TEXT}\n`, stderr: '' });
    // The text grew piece by piece before the final reply, which added only the line's end.
    expect(writes).toEqual([...PIECES, '\n']);
  });

  it('prints the final reply once when stdout is not a terminal, and asks for no pieces', async () => {
    const harness = await start((t) => streaming(t, PIECES));
    const { code, stdout, writes } = await runCli(harness, ['send', 'tides?']);
    expect({ code, stdout }).toEqual({ code: 0, stdout: `${TEXT}\n` });
    expect(writes).toEqual([`${TEXT}\n`]);
  });

  it('prints a reply that was not streamed whole, once', async () => {
    const harness = await start(
      () => (input) => input.pendingMessages.map((m) => ({ type: 'reply' as const, turnId: m.turnId, text: TEXT })),
    );
    const { stdout, writes } = await runCli(harness, ['send', 'tides?'], { stdoutIsTerminal: true });
    expect(stdout).toBe(`${TEXT}\n`);
    expect(writes).toEqual([`${TEXT}\n`]);
  });

  it('ends the line of a stream cut off by a failed think before saying the turn went unanswered', async () => {
    const harness = await start((t) => (input) => {
      const stream = t().stream;
      for (const m of input.pendingMessages) stream?.delta(m.turnId, 'High wa');
      throw new VigilError('THINK_REJECTED', 'prompt is too long');
    });
    const { code, stdout, stderr } = await runCli(harness, ['send', 'tides?'], { stdoutIsTerminal: true });
    expect(code).toBe(1);
    expect(stdout).toBe('High wa\n');
    expect(stderr).toMatch(/^vigil: the agent did not answer \(THINK_REJECTED\)/);
  });

  it('prints the whole final reply on a new line when it does not continue what was streamed', async () => {
    const harness = await start((t) => streaming(t, ['A draft that broke'], TEXT));
    const { code, stdout, stderr } = await runCli(harness, ['send', 'tides?'], { stdoutIsTerminal: true });
    expect(code).toBe(0);
    expect(stdout).toBe(`A draft that broke\n${TEXT}\n`);
    expect(stderr).toBe('vigil: the reply streamed above broke off; the whole reply follows.\n');
  });
});
