/** `vigil events [--types T1,T2] [--after SEQ]`: the event feed, one JSON object per line, until interrupted. */
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs } from './client-args.js';
import { runClientCommand } from './run-client-command.js';

/** The usage line. */
export const EVENTS_USAGE =
  'usage: vigil events [--types T1,T2] [--after SEQ] [--url URL] [--token TOKEN] [--data-dir D]';

/** Runs `vigil events`; reconnects (resuming after the last seq printed) until the user interrupts. */
export function eventsCommand(argv: string[], io: CliIo): Promise<number> {
  return runClientCommand(
    io,
    EVENTS_USAGE,
    () => {
      const args = parseClientArgs(argv, { types: { type: 'string' }, after: { type: 'string' } });
      if (args.positionals.length > 0) throw new UsageError(`unexpected arguments: ${args.positionals.join(' ')}`);
      const after = args.flags['after'];
      if (after !== undefined && !/^\d+$/.test(String(after)))
        throw new UsageError(`--after must be an event seq, not ${JSON.stringify(after)}.`);
      return args;
    },
    (client, args) => {
      const typesFlag = args.flags['types'];
      const types =
        typeof typesFlag === 'string'
          ? typesFlag
              .split(',')
              .map((t) => t.trim())
              .filter((t) => t !== '')
          : undefined;
      const after = args.flags['after'] === undefined ? {} : { after: Number(args.flags['after']) };
      return new Promise<number>((resolve) => {
        const subscription = client.subscribe(types, after).subscribe({
          next: (event) => io.stdout(`${JSON.stringify(event)}\n`),
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
