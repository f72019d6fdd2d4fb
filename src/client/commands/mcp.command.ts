/**
 * `vigil mcp`: Vigil as an MCP server over stdio (CONTRACT §12), relaying to the running daemon with the client
 * commands' `--url`, `--token`, `--data-dir`, offering the tools `VIGIL_MCP_SERVER_TOOLS` names that its token's scope
 * allows (asked of the daemon while the host initialises). It answers `initialize` without waiting on the daemon,
 * connects for the first tool call (again after the daemon restarts), and exits when the host closes stdin. A daemon
 * not started yet (no token file in the data dir), stopped, or refusing the token is no reason to exit: each tool call
 * looks for it again, and answers with the sentence a client command would print until it is found. Once the host is
 * initialised it also pushes the agent's own messages to it as Claude Code channel events (`channel-push.ts`).
 */
import type { TokenScope } from '../../protocol/token-scopes.js';
import type { LinkOpener } from '../mcp/client-link.js';
import { mcpToolsFromEnv } from '../../protocol/mcp-tool-names.js';
import { answerInitializeEarly } from '../mcp/early-initialize.js';
import { LinkUnavailableError } from '../mcp/link-unavailable.js';
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs, type ClientArgs } from './client-args.js';

/** The usage line. */
export const MCP_USAGE =
  'usage: vigil mcp [--url URL] [--token TOKEN] [--data-dir D]   (an MCP server on stdin/stdout)';

/**
 * Runs `vigil mcp` until stdin closes; resolves to the exit code. Only the arguments are read before the host's
 * `initialize` is answered: everything else (zod, the MCP SDK, the client) loads after, and nothing this module
 * imports statically may load them.
 */
export async function mcpCommand(
  argv: string[],
  io: CliIo,
  stdin: NodeJS.ReadableStream = process.stdin,
  stdout: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  let args: ClientArgs;
  try {
    args = parseClientArgs(argv);
    if (args.positionals.length > 0) throw new UsageError(`unexpected arguments: ${args.positionals.join(' ')}`);
  } catch (err) {
    return usageError(err, io);
  }
  const tools = mcpToolsFromEnv(io.env['VIGIL_MCP_SERVER_TOOLS']);
  if ('error' in tools) {
    io.stderr(`vigil: ${tools.error}\n`);
    return 2;
  }
  const early = answerInitializeEarly(stdin, stdout);
  // Loading the modules below blocks the event loop (Node 22 and later load ES modules synchronously), so a host's
  // first line is answered before they load; a person at a terminal is not kept waiting for a line to see a bad
  // --url or VIGIL_PORT, which is found only then.
  if ((stdin as { isTTY?: boolean }).isTTY !== true) await Promise.race([early.firstLine, early.closed]);
  const [
    { resolveTarget },
    { toolsForScope },
    { StdioServerTransport },
    { createVigilMcpServer },
    { createLinkOpener },
    { GatedTransport },
    { startChannel },
  ] = await Promise.all([
    import('./client-options.js'),
    import('../../protocol/mcp-server-tools.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('../mcp/vigil-mcp-server.js'),
    import('../mcp/client-link.js'),
    import('../mcp/gated-transport.js'),
    import('../mcp/channel-start.js'),
  ]);
  const findDaemon = () => resolveTarget(args, io);
  // A bad --url or VIGIL_PORT is the user's to fix before any host can use this server (exit 2, as every client
  // command does). No token file is not: the daemon may start later, and the link looks for it again then.
  const usage = await findDaemon().then(
    () => undefined,
    (err: unknown) => (err instanceof UsageError ? err : undefined),
  );
  if (usage !== undefined) return usageError(usage, io);
  const links = createLinkOpener(findDaemon);
  const channel = await startChannel(args, io, links);
  const server = createVigilMcpServer({ openLink: links.open, where: links.where, tools, channel });
  channel.attach(server.server);
  // Asked while the host initialises: a read or talk token's host is offered only the tools it may use (with the
  // daemon down, all: calls refuse later). Requests after `initialize` wait for it, so no host lists a tool too many.
  const scoped = tokenScope(links, io).then((scope) => {
    if (scope !== undefined) server.offerOnly(toolsForScope(tools, scope));
  });
  const transport = new StdioServerTransport(early.input, stdout as never);
  await server.connect(new GatedTransport(transport, scoped, early.isAnswered));
  await early.closed;
  await channel.push.stop();
  await server.close().catch(() => undefined);
  await links.close();
  return 0;
}

/** Exit 2 with the usage line for a UsageError; anything else is not a usage problem and is thrown on. */
function usageError(err: unknown, io: CliIo): number {
  if (!(err instanceof UsageError)) throw err;
  io.stderr(`vigil: ${err.message}\n${MCP_USAGE}\n`);
  return 2;
}

/** How long `vigil mcp` waits at start to learn its token's scope before offering every configured tool. */
const SCOPE_WAIT_MS = 2000;

/**
 * The scope of the token `vigil mcp` relays with (`auth.whoami`), or undefined when the daemon does not answer soon.
 * Why no daemon was found is said once on stderr, where a host keeps its server's log and a person at a terminal sees it.
 */
async function tokenScope(links: LinkOpener, io: CliIo): Promise<TokenScope | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), SCOPE_WAIT_MS);
  });
  const asked = links
    .open()
    .then(async (link) => (await link.call('auth.whoami')).scope)
    .catch((err: unknown) => {
      if (err instanceof LinkUnavailableError) {
        io.stderr(`vigil: ${err.message}\nvigil: serving anyway: each tool call looks for the daemon again.\n`);
      }
      return undefined;
    });
  try {
    return await Promise.race([asked, late]);
  } finally {
    clearTimeout(timer);
  }
}
