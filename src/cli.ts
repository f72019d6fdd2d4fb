/**
 * The `vigil` command line: the daemon (`run`) and the client commands (`send`, `rpc`, `events`, `conversation`,
 * `checkpoints`, `tools`, `thinks`, `tasks`, `memory`, `mcp`, `schedules`, `tokens`, `dashboard`, `webhooks`, `channels`). Each command is imported only when it runs, so a client call never loads the daemon (LevelDB,
 * XState, pino, prom-client).
 */
import { processIo, type CliIo } from './client/commands/cli-io.js';
import {
  commandHelp,
  commandHelpOf,
  commandUsage,
  didYouMean,
  helpAsked,
  topLevelHelp,
  unknownSubcommand,
} from './client/commands/command-help.js';
import { failureReport } from './shared/failure-report.js';
import { VIGIL_VERSION } from './shared/version.js';

/** A command's entry: its arguments (after the command's name) and the I/O; resolves to the exit code. */
type CommandEntry = (args: string[], io: CliIo) => Promise<number>;

/** Each command by its name, as a loader that imports its module only when that command runs. */
const COMMANDS: ReadonlyMap<string, () => Promise<CommandEntry>> = new Map<string, () => Promise<CommandEntry>>([
  [
    'run',
    async () => {
      const { runDaemon } = await import('./daemon.js');
      return (args, io) =>
        runDaemon(args, {
          env: io.env,
          stderr: (line) => io.stderr(`${line}\n`),
          stdoutIsTerminal: io.stdoutIsTerminal === true,
        });
    },
  ],
  ['send', async () => (await import('./client/commands/send.command.js')).sendCommand],
  ['rpc', async () => (await import('./client/commands/rpc.command.js')).rpcCommand],
  ['events', async () => (await import('./client/commands/events.command.js')).eventsCommand],
  ['conversation', async () => (await import('./client/commands/conversation.command.js')).conversationCommand],
  ['checkpoints', async () => (await import('./client/commands/checkpoints.command.js')).checkpointsCommand],
  ['tools', async () => (await import('./client/commands/tools.command.js')).toolsCommand],
  ['thinks', async () => (await import('./client/commands/thinks.command.js')).thinksCommand],
  ['tasks', async () => (await import('./client/commands/tasks.command.js')).tasksCommand],
  ['memory', async () => (await import('./client/commands/memory.command.js')).memoryCommand],
  ['mcp', async () => (await import('./client/commands/mcp.command.js')).mcpCommand],
  ['schedules', async () => (await import('./client/commands/schedules.command.js')).schedulesCommand],
  ['tokens', async () => (await import('./client/commands/tokens.command.js')).tokensCommand],
  ['dashboard', async () => (await import('./client/commands/dashboard.command.js')).dashboardCommand],
  ['webhooks', async () => (await import('./client/commands/webhooks.command.js')).webhooksCommand],
  ['channels', async () => (await import('./client/commands/channels.command.js')).channelsCommand],
]);

/** The commands' names, in their order (each has its help in src/client/commands/help-catalogue.ts). */
export const COMMAND_NAMES: readonly string[] = [...COMMANDS.keys()];

/** Runs the command in `argv` (without node and script); resolves to the exit code (CONTRACT §2). */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  const load = command === undefined ? undefined : COMMANDS.get(command);
  const help = command === undefined ? undefined : commandHelpOf(command);
  if (load !== undefined && help !== undefined) {
    // Help and a misspelt subcommand are answered here, before the command parses (or connects) at all.
    if (helpAsked(rest)) {
      io.stdout(`${commandHelp(help, rest)}\n`);
      return 0;
    }
    const unknown = unknownSubcommand(help, rest);
    if (unknown !== undefined) {
      io.stderr(`vigil: ${unknown}\n${commandUsage(help)}\n`);
      return 2;
    }
  }
  if (load !== undefined) {
    try {
      const entry = await load();
      return await entry(rest, io);
    } catch (err) {
      // Each command reports what it expects; anything else is one line too, its stack only for debugging (§2: exit 1).
      io.stderr(failureReport(err, io.env));
      return 1;
    }
  }
  switch (command) {
    case '--version':
    case 'version':
      io.stdout(`${VIGIL_VERSION}\n`);
      return 0;
    case '--help':
    case 'help':
    case '-h': {
      // `vigil help webhooks` is `vigil webhooks --help`.
      const asked = rest[0] === undefined ? undefined : commandHelpOf(rest[0]);
      io.stdout(`${asked === undefined ? topLevelHelp() : commandHelp(asked, rest.slice(1))}\n`);
      return 0;
    }
    default: {
      const hint = command === undefined ? '' : didYouMean(command, [...COMMANDS.keys()]);
      io.stderr(
        `vigil: ${command === undefined ? 'no command given' : `unknown command "${command}"${hint}`}\n${topLevelHelp()}\n`,
      );
      return 2;
    }
  }
}

/**
 * The `vigil` binary's entry (bin/vigil.js): `main` on the real process. An error thrown where nothing awaits it (a
 * stream's error event, a promise no one handles) would have Node print its stack and exit 1: it is printed as one
 * line instead, with the stack only when VIGIL_LOG_LEVEL is debug or trace, and the exit code stays 1.
 */
export function runVigil(argv: string[]): Promise<number> {
  const io = processIo();
  // A reader that went away (`vigil events | head -3`) ends a client command quietly, as it ends any Unix filter. Not
  // the daemon's (its stop writes a final checkpoint) nor `vigil mcp`'s (stdout is its host's channel).
  if (argv[0] !== 'run' && argv[0] !== 'mcp') {
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      throw err;
    });
  }
  process.on('uncaughtException', (err) => {
    process.stderr.write(failureReport(err, io.env));
    process.exit(1);
  });
  return main(argv, io);
}
