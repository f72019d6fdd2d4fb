/** The `vigil` command line: the daemon (`run`) and the client commands (`rpc`, `events`, `conversation`, `checkpoints`, `tools`). */
import { checkpointsCommand, CHECKPOINTS_USAGE } from './client/commands/checkpoints.command.js';
import { processIo, type CliIo } from './client/commands/cli-io.js';
import { conversationCommand, CONVERSATION_USAGE } from './client/commands/conversation.command.js';
import { eventsCommand, EVENTS_USAGE } from './client/commands/events.command.js';
import { rpcCommand, RPC_USAGE } from './client/commands/rpc.command.js';
import { toolsCommand, TOOLS_USAGE } from './client/commands/tools.command.js';
import { runDaemon } from './daemon.js';
import { VIGIL_VERSION } from './shared/version.js';

const USAGE = `usage: vigil <command>

commands:
  run [--data-dir D] [--host H] [--port P] [--thinker offline|anthropic] [--repair]
      the daemon, in the foreground (JSON log lines on stdout)
  rpc METHOD [PARAMS_JSON]
      one JSON-RPC call; prints the result as JSON (an RPC error goes to stderr, exit 1)
  events [--types T1,T2] [--after SEQ]
      the event feed, one JSON object per line, until interrupted
  conversation [--limit N] [--before SEQ] [--json]
      the conversation log, newest last, one line per entry (--json: the entries as JSON);
      page back with --before the oldest seq shown
  checkpoints list | create | show ID | restore ID --yes | export ID FILE | import FILE
      the checkpoint methods
  tools list [--json]
      the MCP tools the agent may use: name, up or down, approval, description
  --version   print the version
  --help      print this help

client commands take --url URL (default http://VIGIL_HOST:VIGIL_PORT) and --token TOKEN
(default VIGIL_TOKEN, else the token file in --data-dir, default VIGIL_DATA_DIR or ./data).

${RPC_USAGE}
${EVENTS_USAGE}
${CONVERSATION_USAGE}
${CHECKPOINTS_USAGE}
${TOOLS_USAGE}`;

/** Runs the command in `argv` (without node and script); resolves to the exit code (CONTRACT §2). */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run':
      return runDaemon(rest, { env: io.env, stderr: (line) => io.stderr(`${line}\n`) });
    case 'rpc':
      return rpcCommand(rest, io);
    case 'events':
      return eventsCommand(rest, io);
    case 'conversation':
      return conversationCommand(rest, io);
    case 'checkpoints':
      return checkpointsCommand(rest, io);
    case 'tools':
      return toolsCommand(rest, io);
    case '--version':
    case 'version':
      io.stdout(`${VIGIL_VERSION}\n`);
      return 0;
    case '--help':
    case 'help':
    case '-h':
      io.stdout(`${USAGE}\n`);
      return 0;
    default:
      io.stderr(`vigil: ${command === undefined ? 'no command given' : `unknown command "${command}"`}\n${USAGE}\n`);
      return 2;
  }
}
