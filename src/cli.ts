/** The `vigil` command line: dispatches to the daemon and (as they land) the client commands. */
import { runDaemon } from './daemon.js';
import { VIGIL_VERSION } from './shared/version.js';

const USAGE = `usage: vigil <command>

commands:
  run [--data-dir D] [--host H] [--port P] [--thinker offline|anthropic] [--repair]
      the daemon, in the foreground (JSON log lines on stdout)
  --version   print the version
  --help      print this help`;

/** Runs the command in `argv` (without node and script); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run':
      return runDaemon(rest, { env: process.env, stderr: (line) => process.stderr.write(`${line}\n`) });
    case '--version':
    case 'version':
      process.stdout.write(`${VIGIL_VERSION}\n`);
      return 0;
    case '--help':
    case 'help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    default:
      process.stderr.write(`vigil: ${command === undefined ? 'no command given' : `unknown command "${command}"`}\n${USAGE}\n`);
      return 2;
  }
}
