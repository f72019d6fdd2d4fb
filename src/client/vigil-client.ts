/**
 * The typed gateway client for Node (the CLI, the examples, the tests): `connect({url, token})` gives
 * `client.heartbeat.status()` and every other method typed from the schemas, over `ws` with the token in an
 * `Authorization` header. The browser's entry is `browser.ts`; neither loads the other's transport.
 */
import { ClientCore, connectClient } from './client-core.js';
import type { ConnectOptions } from './connect-options.js';
import { openNodeSocket } from './node-socket.js';

export { rpcUrl, type ClientState, type ConnectOptions, type ReconnectOptions } from './connect-options.js';

/** Opens a client and resolves once connected; rejects (GATEWAY_UNAUTHORIZED, CLIENT_DISCONNECTED) if it cannot. */
export function connect(options: ConnectOptions): Promise<VigilClient> {
  return connectClient(VigilClient, options);
}

/** A connection to the gateway over `ws`; use `connect()` to get one. */
export class VigilClient extends ClientCore {
  constructor(options: ConnectOptions) {
    super(options, openNodeSocket);
  }
}
