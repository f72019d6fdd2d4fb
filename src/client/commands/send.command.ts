/**
 * `vigil send TEXT [--no-wait] [--timeout S]`: one message to the agent; prints its reply and exits 0, or prints the
 * `agent.unanswered` reason on stderr and exits 1 (CONTRACT §2, §7: every turn ends in exactly one of the two). On a
 * terminal the reply is printed as the model writes it (`agent.reply_delta`); piped, only the final reply.
 */
import type { Unsubscribable } from 'rxjs';
import type { FeedEvent } from '../client-core.js';
import type { VigilClient } from '../vigil-client.js';
import { nodeTimers, UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs, type ClientArgs } from './client-args.js';
import { runClientCommand } from './run-client-command.js';
import { StreamedReply } from './streamed-reply.js';

/** The usage line. */
export const SEND_USAGE =
  'usage: vigil send TEXT [--no-wait] [--timeout S] [--from NAME] [--url URL] [--token TOKEN] [--data-dir D]';

// The events that concern a turn once sent: an acknowledgement may come first, then exactly one ending.
const TURN_EVENTS = ['agent.ack', 'agent.reply', 'agent.unanswered'] as const;
// On a terminal, the reply's pieces too. Live only, they reach a feed that names them and is live: their own, which
// replays nothing, so the journal replay of the other feed never holds them back.
const PIECE_EVENTS = ['agent.reply_delta'] as const;
// Node's timers overflow past 2^31-1 ms.
const MAX_TIMEOUT_S = Math.floor(2_147_483_647 / 1000);

/** What `vigil send` was asked to do. */
interface SendRequest {
  text: string;
  from: string | undefined;
  wait: boolean;
  timeoutMs: number | undefined;
}

/** Reads and checks the arguments; throws UsageError. */
export function parseSendArgs(argv: string[]): { args: ClientArgs; request: SendRequest } {
  const args = parseClientArgs(argv, {
    'no-wait': { type: 'boolean' },
    timeout: { type: 'string' },
    from: { type: 'string' },
  });
  // Several words are one message, as `echo` takes them: `vigil send hello there`.
  const text = args.positionals.join(' ');
  if (text.trim() === '') throw new UsageError('send needs the TEXT of a message (e.g. vigil send "hello").');
  const wait = args.flags['no-wait'] !== true;
  const timeoutText = args.flags['timeout'];
  let timeoutMs: number | undefined;
  if (typeof timeoutText === 'string') {
    if (!wait)
      throw new UsageError('--timeout limits the wait for the reply, and --no-wait does not wait: give one of them.');
    const seconds = /^(\d+(\.\d*)?|\.\d+)$/.test(timeoutText.trim()) ? Number(timeoutText) : Number.NaN;
    if (!(seconds > 0 && seconds <= MAX_TIMEOUT_S)) {
      throw new UsageError(
        `--timeout must be a number of seconds above 0 (at most ${MAX_TIMEOUT_S}), not ${JSON.stringify(timeoutText)}.`,
      );
    }
    timeoutMs = Math.ceil(seconds * 1000);
  }
  const from = typeof args.flags['from'] === 'string' ? args.flags['from'] : undefined;
  return { args, request: { text, from, wait, timeoutMs } };
}

/**
 * Sends and waits for the turn's ending. The feed starts after the newest event seen before sending, so the reply
 * is replayed from the journal even if it is written before the subscription is in place: it cannot be missed.
 */
async function sendAndWait(client: VigilClient, request: SendRequest, io: CliIo): Promise<number> {
  const [newest] = await client.events.history({ limit: 1 });
  const timers = io.timers ?? nodeTimers;
  const streamed = io.stdoutIsTerminal === true ? new StreamedReply() : undefined;
  return new Promise<number>((resolve, reject) => {
    let turnId: string | undefined;
    let settled = false;
    let timer: unknown;
    let feed: Unsubscribable | undefined;
    let pieces: Unsubscribable | undefined;
    const early: FeedEvent[] = [];
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) timers.clearTimeout(timer);
      feed?.unsubscribe();
      pieces?.unsubscribe();
      // A reply cut off mid-line leaves the line ended before anything else is said.
      const open = streamed?.cut() ?? '';
      if (open !== '') io.stdout(open);
      outcome();
    };
    const reply = (text: string): void => {
      for (const part of streamed?.final(text) ?? [{ to: 'stdout', text: `${text}\n` }]) io[part.to](part.text);
    };
    const onEvent = (event: FeedEvent): void => {
      // Until agent.send answers, this turn's id is unknown: keep what arrives and look at it then.
      if (turnId === undefined) return void early.push(event);
      if (!('turnId' in event) || event.turnId !== turnId) return;
      if (event.type === 'agent.reply_delta') {
        if (!settled && streamed !== undefined) io.stdout(streamed.piece(event.text));
      } else if (event.type === 'agent.ack') io.stderr(`vigil: acknowledged: ${event.text}\n`);
      else if (event.type === 'agent.reply') {
        // Printed before finish() ends the line of a stream, so the final text continues it.
        if (!settled) reply(event.text);
        finish(() => resolve(0));
      } else if (event.type === 'agent.unanswered') {
        finish(() => (io.stderr(`vigil: the agent did not answer (${event.code}): ${event.reason}\n`), resolve(1)));
      }
    };
    const failed = (err: unknown) => finish(() => reject(err));
    feed = client.subscribe(TURN_EVENTS, { after: newest?.seq ?? 0 }).subscribe({ next: onEvent, error: failed });
    if (streamed !== undefined) pieces = client.subscribeFeed(PIECE_EVENTS).subscribe({ next: onEvent, error: failed });
    if (settled) {
      feed.unsubscribe();
      pieces?.unsubscribe();
    }
    client.agent.send({ text: request.text, ...(request.from === undefined ? {} : { from: request.from }) }).then(
      (result) => {
        turnId = result.turnId;
        for (const event of early.splice(0)) onEvent(event);
      },
      (err: unknown) => finish(() => reject(err)),
    );
    const pending = (): string =>
      turnId === undefined ? '' : ` Turn ${turnId} is still open: its answer will show in \`vigil conversation\`.`;
    if (request.timeoutMs !== undefined) {
      const seconds = request.timeoutMs / 1000;
      timer = timers.setTimeout(
        () => finish(() => (io.stderr(`vigil: no answer within ${seconds} s (--timeout).${pending()}\n`), resolve(1))),
        request.timeoutMs,
      );
    }
    // interrupted() only ever resolves (on Ctrl-C).
    void io.interrupted().then(() => finish(() => (io.stderr(`vigil: stopped waiting.${pending()}\n`), resolve(1))));
  });
}

/** Runs `vigil send`. */
export function sendCommand(argv: string[], io: CliIo): Promise<number> {
  let request: SendRequest | undefined;
  return runClientCommand(
    io,
    SEND_USAGE,
    () => {
      const parsed = parseSendArgs(argv);
      request = parsed.request;
      return parsed.args;
    },
    async (client) => {
      const wanted = request!;
      if (wanted.wait) return sendAndWait(client, wanted, io);
      const { turnId } = await client.agent.send({
        text: wanted.text,
        ...(wanted.from === undefined ? {} : { from: wanted.from }),
      });
      io.stdout(`${turnId}\n`);
      return 0;
    },
    // A daemon restarted while we wait is reconnected to; the feed resumes after the last event it delivered.
    { reconnect: true },
  );
}
