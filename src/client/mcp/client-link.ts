/**
 * The `VigilLink` of `vigil mcp`: a typed client over the wire, opened on the first tool call and opened again when
 * the last one closed (the daemon restarted or was down), so one long-lived MCP session outlives daemon restarts.
 */
import type { ConnectOptions } from '../connect-options.js';
import { connect, type VigilClient } from '../vigil-client.js';
import type { OpenLink } from './vigil-link.js';

/** Opens links on demand; `close` ends the current one. */
export interface LinkOpener {
  open: OpenLink;
  close(): Promise<void>;
}

/** A link opener over `options` (URL and token as the client commands resolve them). */
export function createLinkOpener(options: ConnectOptions): LinkOpener {
  let current: Promise<VigilClient> | undefined;
  const open = async (): Promise<VigilClient> => {
    const pending = current;
    if (pending !== undefined) {
      const client = await pending.catch(() => undefined);
      if (client !== undefined && client.state$.value === 'open') return client;
    }
    // No reconnect loop: a daemon that is down must fail this call at once (an isError result), not stall it.
    const next = connect({ ...options, reconnect: false });
    current = next;
    return next;
  };
  return {
    open,
    close: async () => {
      const client = await current?.catch(() => undefined);
      await client?.close().catch(() => undefined);
    },
  };
}
