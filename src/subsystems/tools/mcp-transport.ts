/** The SDK transport for one configured server: a stdio child under the launcher, or a Streamable HTTP connection. */
import type { Readable } from 'node:stream';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isStdioServer, type McpServerEntry } from '../../protocol/mcp-config.schema.js';
import { launcherCommand } from './launcher-script.js';

/** A transport, plus the child's stderr when it is a process. */
export interface ServerTransport {
  transport: Transport;
  /** The stdio server's stderr (through its launcher); it must be read, or a chatty server blocks on a full pipe. */
  stderr: Readable | null;
  /** The launcher's pid, once started (stdio only). */
  pid: () => number | null;
}

/** A Streamable HTTP server's sign-in, as its transport uses it (see `oauth/server-auth.ts`). */
export interface TransportAuth {
  provider: OAuthClientProvider;
  fetch: FetchLike;
}

/**
 * Builds the transport for `entry` (with `auth`, a Streamable HTTP server answers a 401 by the SDK's OAuth flow). A stdio server's environment is the SDK's safe defaults (`getDefaultEnvironment()`:
 * PATH, HOME, USER, LOGNAME, SHELL, TERM) plus exactly the `env` its entry names — never the daemon's own, so API keys
 * and the gateway token stay in the daemon.
 */
export function createServerTransport(entry: McpServerEntry, auth?: TransportAuth): ServerTransport {
  if (isStdioServer(entry)) {
    const launcher = launcherCommand(entry.command, entry.args ?? []);
    const transport = new StdioClientTransport({
      command: launcher.command,
      args: launcher.args,
      // The SDK spreads getDefaultEnvironment() under this: nothing else of process.env reaches the child.
      env: { ...(entry.env ?? {}) },
      ...(entry.cwd === undefined ? {} : { cwd: entry.cwd }),
      stderr: 'pipe',
    });
    return { transport, stderr: transport.stderr as Readable | null, pid: () => transport.pid };
  }
  const transport = new StreamableHTTPClientTransport(new URL(entry.url), {
    ...(entry.headers === undefined ? {} : { requestInit: { headers: entry.headers } }),
    ...(auth === undefined ? {} : { authProvider: auth.provider, fetch: auth.fetch }),
  });
  return { transport, stderr: null, pid: () => null };
}
