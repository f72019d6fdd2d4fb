/**
 * The `vigil` command line: the daemon (`run`) and the client commands (`send`, `rpc`, `events`, `conversation`,
 * `checkpoints`, `tools`, `thinks`, `tasks`, `memory`, `mcp`, `schedules`, `tokens`, `webhooks`, `channels`). Each command is imported only when it runs, so a client call never loads the daemon (LevelDB,
 * XState, pino, prom-client).
 */
import { processIo, type CliIo } from './client/commands/cli-io.js';
import { failureReport } from './shared/failure-report.js';
import { nearestNames } from './shared/nearest-names.js';
import { VIGIL_VERSION } from './shared/version.js';

/** The whole help text; it quotes each client command's usage, so it loads those commands (help only). */
async function usage(): Promise<string> {
  const [
    { SEND_USAGE },
    { RPC_USAGE },
    { EVENTS_USAGE },
    { CONVERSATION_USAGE },
    { CHECKPOINTS_USAGE },
    { TOOLS_USAGE },
    { THINKS_USAGE },
    { TASKS_USAGE },
    { MEMORY_USAGE },
    { SCHEDULES_USAGE },
    { TOKENS_USAGE },
    { WEBHOOKS_USAGE },
    { CHANNELS_USAGE },
  ] = await Promise.all([
    import('./client/commands/send.command.js'),
    import('./client/commands/rpc.command.js'),
    import('./client/commands/events.command.js'),
    import('./client/commands/conversation.command.js'),
    import('./client/commands/checkpoints.command.js'),
    import('./client/commands/tools.command.js'),
    import('./client/commands/thinks.command.js'),
    import('./client/commands/tasks.command.js'),
    import('./client/commands/memory.command.js'),
    import('./client/commands/schedules.command.js'),
    import('./client/commands/tokens.command.js'),
    import('./client/commands/webhooks.command.js'),
    import('./client/commands/channels.command.js'),
  ]);
  return `usage: vigil <command>

commands:
  run [--data-dir D] [--host H] [--port P] [--thinker offline|anthropic|openai] [--repair]
      the daemon, in the foreground (JSON log lines on stdout; human ones when stdout is a terminal)
  send TEXT [--no-wait] [--timeout S]
      sends a message; prints the agent's reply (exit 0), or why it went unanswered on stderr (exit 1);
      --no-wait prints the turn's id at once
  rpc METHOD [PARAMS_JSON]
      one JSON-RPC call; prints the result as JSON (an RPC error goes to stderr, exit 1)
  events [--types T1,T2] [--after SEQ]
      the event feed, one JSON object per line, until interrupted
  conversation [--limit N] [--before SEQ] [--json]
      the conversation log, newest last, one line per entry (--json: the entries as JSON);
      page back with --before the oldest seq shown
  conversation search QUERY [--limit N] [--before T] [--after T] [--json]
      the messages best matching QUERY, best first (user and agent, all that retention keeps), optionally said
      before/after ISO times: seq, time, who, score, text
  checkpoints list | create | show ID | restore ID --yes | export ID FILE | import FILE
      the checkpoint methods
  tools list [--json]
      the MCP tools the agent may use: name, up, down or needs_auth, approval, description;
      then each server waiting for a sign-in, with its sign-in URL
  tools pending [--json] | approve CALL_ID | deny CALL_ID [--reason R]
      tool calls waiting for an operator's approval; approve runs one, deny refuses it (the agent is told why)
  tools login SERVER [--no-wait] | logout SERVER
      sign in to a remote MCP server behind OAuth: prints the URL to open and waits until the sign-in
      completes (0) or fails (1); --no-wait only prints it. logout forgets the server's tokens
  thinks list [--limit N] [--before ID] [--json] | thinks show ID [--json]
      the traces of recent thinks: why each ran, its model and tool calls, tokens, cache ratio, cost;
      show: one think's calls and prompt sections
  tasks list [--json] | tasks cancel ID
      the sub-agent tasks: id, status, spend and cap, tools, prompt; cancel drops or aborts one
  memory search QUERY [--limit N] [--json] | memory forget ID
      search the agent's long-term memory (id, score, source, created, content), or forget one memory
  mcp
      an MCP server on stdin/stdout relaying to the daemon, for MCP hosts (Claude Desktop, Claude Code, …)
  schedules list [--json] | add TEXT (--cron EXPR [--timezone TZ] | --every DURATION | --at ISO) [--catch-up P]
            | remove ID | pause ID | resume ID
      wake-ups that send the agent TEXT: a cron in a time zone, an interval or a one-shot; each firing is a turn
      (and a think), so --every is at least 1m
  tokens create --scope read|talk|operate [--name N] [--expires 30d] | tokens list | tokens revoke NAME
      gateway tokens that can only read, or talk, or operate; create prints the secret once
  webhooks add URL --types agent.reply,tool.* [--name N] | list | remove ID | enable ID | test ID
           | deliveries ID [--limit N] | redeliver ID --after SEQ
      signed HTTP POSTs of the events of those types, at least once and in order; add prints the secret once
  --version   print the version
  --help      print this help

client commands find the daemon through its data dir (--data-dir D, default VIGIL_DATA_DIR or ./data):
--url URL (default: the URL in D/daemon.json, written by the running daemon; else http://VIGIL_HOST:VIGIL_PORT)
--token TOKEN (default: VIGIL_TOKEN, else the token file D/token, which may do everything; give other
clients a narrower one with \`vigil tokens create --scope read\`).

${SEND_USAGE}
${RPC_USAGE}
${EVENTS_USAGE}
${CONVERSATION_USAGE}
${CHECKPOINTS_USAGE}
${TOOLS_USAGE}
${THINKS_USAGE}

${TASKS_USAGE}

${MEMORY_USAGE}

${SCHEDULES_USAGE}

${TOKENS_USAGE}

${WEBHOOKS_USAGE}

${CHANNELS_USAGE}`;
}

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
  ['webhooks', async () => (await import('./client/commands/webhooks.command.js')).webhooksCommand],
  ['channels', async () => (await import('./client/commands/channels.command.js')).channelsCommand],
]);

/** Runs the command in `argv` (without node and script); resolves to the exit code (CONTRACT §2). */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  const load = command === undefined ? undefined : COMMANDS.get(command);
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
    case '-h':
      io.stdout(`${await usage()}\n`);
      return 0;
    default: {
      const near = command === undefined ? [] : nearestNames(command, [...COMMANDS.keys()]);
      const hint = near.length === 0 ? '' : ` (did you mean ${near.map((name) => `"${name}"`).join(' or ')}?)`;
      io.stderr(
        `vigil: ${command === undefined ? 'no command given' : `unknown command "${command}"${hint}`}\n${await usage()}\n`,
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
