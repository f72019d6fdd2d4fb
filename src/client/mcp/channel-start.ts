/**
 * `vigil mcp`'s channel, put together: the cursor file in the data dir when there is one, the notifications written
 * through the SDK's server, started once the host has initialised.
 */
import { stat } from 'node:fs/promises';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CliIo } from '../commands/cli-io.js';
import type { ClientArgs } from '../commands/client-args.js';
import { clientDataDir } from '../commands/client-options.js';
import { fileChannelCursor } from './channel-cursor.js';
import { createChannelPush, type ChannelPush } from './channel-push.js';
import type { LinkOpener } from './client-link.js';
import { CLAUDE_CHANNEL_METHOD } from './mcp-server-identity.js';
import { SessionTurns } from './session-turns.js';

/** The channel of one `vigil mcp` run: give `sessionTurns` to the server, then `attach` it. */
export interface McpChannel {
  readonly sessionTurns: SessionTurns;
  readonly push: ChannelPush;
  /** Sends notifications through `server` and starts when its host has sent `notifications/initialized`. */
  attach(server: Server): void;
}

/** The channel for `vigil mcp ARGS`, following the daemon `links` reach. */
export async function startChannel(args: ClientArgs, io: CliIo, links: LinkOpener): Promise<McpChannel> {
  const dataDir = clientDataDir(args.flags, io.env);
  const hasDataDir = await stat(dataDir).then(
    (found) => found.isDirectory(),
    () => false,
  );
  let server: Server | undefined;
  const sessionTurns = new SessionTurns();
  let lastError = '';
  const push = createChannelPush({
    open: links.open,
    notify: async (message) => {
      if (server === undefined) throw new Error('no MCP server to notify through');
      // A method of Claude Code's own: the SDK's server checks capabilities only for the notifications it knows.
      await server.notification({ method: CLAUDE_CHANNEL_METHOD, params: { ...message } });
    },
    // The daemon may be remote: without a data dir here, there is nowhere to keep a cursor, so each run starts now.
    cursorFor: (tokenName) => (hasDataDir ? fileChannelCursor(dataDir, tokenName) : undefined),
    sessionTurns,
    onError: (err) => {
      // Said once per cause, not once per retry: a daemon down for an hour is one line in the host's log.
      const text = err instanceof Error ? err.message : String(err);
      if (text !== lastError) io.stderr(`vigil: channel: ${text} (trying again)\n`);
      lastError = text;
    },
  });
  return {
    sessionTurns,
    push,
    attach: (attached) => {
      server = attached;
      const before = attached.oninitialized;
      attached.oninitialized = () => {
        before?.();
        push.start();
      };
    },
  };
}
