/**
 * The `VigilLink` of `vigil mcp`: a typed client over the wire, opened on the first tool call and opened again when
 * the last one closed (the daemon restarted, stopped, or had not started yet), so one long-lived MCP session outlives
 * daemon restarts. The daemon is looked for anew before each link: one started after `vigil mcp` writes its address
 * and token file only then, and a restarted one may listen on another port.
 */
import { describeError } from '../../errors.js';
import type { DaemonTarget } from '../commands/client-options.js';
import { describeConnectFailure } from '../commands/connect-failure.js';
import { connect, type VigilClient } from '../vigil-client.js';
import { LinkUnavailableError } from './link-unavailable.js';

/** Opens links on demand; `close` ends the current one. */
export interface LinkOpener {
  /** The open link, or a new one; rejects with a LinkUnavailableError when the daemon cannot be found or reached. */
  open: () => Promise<VigilClient>;
  /** The URL of the daemon last found (for messages about a link lost during a call). */
  where: () => string;
  close(): Promise<void>;
}

/** Where the daemon is and which token to present, read again for each link (the client commands' `resolveTarget`). */
export type FindDaemon = () => Promise<DaemonTarget>;

/** A link opener that finds its daemon with `find` each time it has no open link. */
export function createLinkOpener(find: FindDaemon): LinkOpener {
  let current: Promise<VigilClient> | undefined;
  let where = 'the address vigil mcp was given';

  const connectAnew = async (): Promise<VigilClient> => {
    let target: DaemonTarget;
    try {
      target = await find();
    } catch (err) {
      // No token file yet (the daemon has never run with this data dir), or an address that is not one.
      throw new LinkUnavailableError(describeError(err), { cause: err });
    }
    where = target.url;
    try {
      // No reconnect loop: a daemon that is down must fail this call at once (an isError result), not stall it.
      return await connect({ url: target.url, token: target.token, reconnect: false });
    } catch (err) {
      const message = describeConnectFailure(err, target);
      if (message === undefined) throw err;
      throw new LinkUnavailableError(message, { cause: err });
    }
  };

  const open = async (): Promise<VigilClient> => {
    const pending = current;
    if (pending !== undefined) {
      const client = await pending.catch(() => undefined);
      if (client !== undefined && client.state$.value === 'open') return client;
    }
    const next = connectAnew();
    current = next;
    return next;
  };

  return {
    open,
    where: () => where,
    close: async () => {
      const client = await current?.catch(() => undefined);
      await client?.close().catch(() => undefined);
    },
  };
}
