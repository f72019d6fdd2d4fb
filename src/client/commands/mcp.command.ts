/**
 * `vigil mcp`: Vigil as an MCP server over stdio (CONTRACT §12), relaying to the running daemon with the client
 * commands' `--url`, `--token`, `--data-dir`, offering the tools `VIGIL_MCP_SERVER_TOOLS` names that its token's scope
 * allows (asked of the daemon at start). It answers `initialize` without the daemon, connects on the first tool call (again after the daemon restarts), and exits when
 * the host closes stdin.
 */
import { mcpToolsFromEnv, toolsForScope, type McpToolName } from '../../protocol/mcp-server-tools.js';
import type { TokenScope } from '../../protocol/token-scopes.js';
import type { LinkOpener } from '../mcp/client-link.js';
import { UsageError, type CliIo } from './cli-io.js';
import { clientOptions, parseClientArgs } from './client-options.js';

/** The usage line. */
export const MCP_USAGE =
  'usage: vigil mcp [--url URL] [--token TOKEN] [--data-dir D]   (an MCP server on stdin/stdout)';

/** Runs `vigil mcp` until stdin closes; resolves to the exit code. */
export async function mcpCommand(
  argv: string[],
  io: CliIo,
  stdin: NodeJS.ReadableStream = process.stdin,
  stdout: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  let options;
  try {
    const args = parseClientArgs(argv);
    if (args.positionals.length > 0) throw new UsageError(`unexpected arguments: ${args.positionals.join(' ')}`);
    options = await clientOptions(args, io);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`vigil: ${err.message}\n${MCP_USAGE}\n`);
    return 2;
  }
  const tools = mcpToolsFromEnv(io.env['VIGIL_MCP_SERVER_TOOLS']);
  if ('error' in tools) {
    io.stderr(`vigil: ${tools.error}\n`);
    return 2;
  }
  // Loaded only now: `vigil --help` and the other commands never pay for the MCP SDK's server side.
  const [{ StdioServerTransport }, { createVigilMcpServer }, { createLinkOpener }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('../mcp/vigil-mcp-server.js'),
    import('../mcp/client-link.js'),
  ]);
  const links = createLinkOpener(options);
  const scope = await tokenScope(links);
  // A read or talk token's host is offered only the tools it may use; with the daemon down, all (calls refuse later).
  const offered: readonly McpToolName[] = scope === undefined ? tools : toolsForScope(tools, scope);
  const server = createVigilMcpServer({ openLink: links.open, where: options.url, tools: offered });
  const closed = new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
  });
  await server.connect(new StdioServerTransport(stdin as never, stdout as never));
  await closed;
  await server.close().catch(() => undefined);
  await links.close();
  return 0;
}

/** How long `vigil mcp` waits at start to learn its token's scope before offering every configured tool. */
const SCOPE_WAIT_MS = 2000;

/** The scope of the token `vigil mcp` relays with (`auth.whoami`), or undefined when the daemon does not answer soon. */
async function tokenScope(links: LinkOpener): Promise<TokenScope | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), SCOPE_WAIT_MS);
  });
  const asked = links
    .open()
    .then(async (link) => (await link.call('auth.whoami')).scope)
    .catch(() => undefined);
  try {
    return await Promise.race([asked, late]);
  } finally {
    clearTimeout(timer);
  }
}
