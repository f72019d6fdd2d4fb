/**
 * `vigil events [--types T1,T2] [--after SEQ] [--beats] [--json]`: the event feed until interrupted. Piped (or with
 * `--json`) one JSON object per line, every event, as CONTRACT §2 says; on a terminal one short line per event, without
 * `heartbeat.beat` unless asked for.
 */
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs } from './client-args.js';
import { formatEventLine, showsBeats } from './event-line.js';
import { unknownTypePattern } from './event-type-patterns.js';
import { runClientCommand } from './run-client-command.js';

/** The usage line. */
export const EVENTS_USAGE =
  'usage: vigil events [--types T1,T2] [--after SEQ] [--beats] [--json] [--url URL] [--token TOKEN] [--data-dir D]';

/** The `--types` patterns, or undefined for every type. */
function typesOf(flag: string | boolean | undefined): string[] | undefined {
  return typeof flag === 'string'
    ? flag
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '')
    : undefined;
}

/** Runs `vigil events`; reconnects (resuming after the last seq printed) until the user interrupts. */
export function eventsCommand(argv: string[], io: CliIo): Promise<number> {
  return runClientCommand(
    io,
    EVENTS_USAGE,
    () => {
      const args = parseClientArgs(argv, {
        types: { type: 'string' },
        after: { type: 'string' },
        beats: { type: 'boolean' },
        json: { type: 'boolean' },
      });
      if (args.positionals.length > 0) throw new UsageError(`unexpected arguments: ${args.positionals.join(' ')}`);
      const after = args.flags['after'];
      if (after !== undefined && !/^\d+$/.test(String(after)))
        throw new UsageError(`--after must be an event seq, not ${JSON.stringify(after)}.`);
      const unknown = unknownTypePattern(typesOf(args.flags['types']) ?? []);
      if (unknown !== undefined) throw new UsageError(unknown);
      return args;
    },
    (client, args) => {
      const types = typesOf(args.flags['types']);
      const after = args.flags['after'] === undefined ? {} : { after: Number(args.flags['after']) };
      // JSON lines for programs (a pipe, or --json); short lines for a person at a terminal.
      const human = io.stdoutIsTerminal === true && args.flags['json'] !== true;
      const beats = !human || showsBeats(types, args.flags['beats'] === true);
      return new Promise<number>((resolve) => {
        const subscription = client.subscribe(types, after).subscribe({
          next: (event) => {
            if (!human) io.stdout(`${JSON.stringify(event)}\n`);
            else if (beats || event.type !== 'heartbeat.beat') io.stdout(`${formatEventLine(event)}\n`);
          },
          error: (err: unknown) => {
            io.stderr(`vigil: the event feed ended: ${(err as Error).message}\n`);
            resolve(1);
          },
          complete: () => resolve(0),
        });
        client.dropped$.subscribe((notice) =>
          io.stderr(
            `vigil: ${notice.count} events dropped (seq ${notice.firstSeq}-${notice.lastSeq}): this terminal fell behind\n`,
          ),
        );
        // interrupted() only ever resolves (on Ctrl-C); the feed's own end resolves the command otherwise.
        void io.interrupted().then(() => {
          subscription.unsubscribe();
          resolve(0);
        });
      });
    },
    { reconnect: true },
  );
}
