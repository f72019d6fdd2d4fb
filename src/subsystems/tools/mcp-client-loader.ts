/** The MCP client side and its OAuth support, each loaded lazily and once only. */
import type * as ServerConnectionModule from './server-connection.js';
import type * as ServerAuthModule from './oauth/server-auth.js';

let mcpClient: Promise<typeof ServerConnectionModule> | undefined;
let mcpAuth: Promise<typeof ServerAuthModule> | undefined;

/** The SDK's client auth, loaded like the client itself: only a daemon with Streamable HTTP servers pays for it. */
export function loadServerAuth(): Promise<typeof ServerAuthModule> {
  return (mcpAuth ??= import('./oauth/server-auth.js'));
}

/**
 * The MCP client side (the SDK's client), loaded on first use and once only: ~180 ms a daemon without MCP servers
 * never pays. Once loaded, later hubs get it without another import (a host that replays runs exactly loads it first).
 */
export function loadMcpClient(): Promise<typeof ServerConnectionModule> {
  // The client auth with it: one load, so a host that loads the client first has both before any server connects.
  return (mcpClient ??= Promise.all([import('./server-connection.js'), loadServerAuth()]).then(([client]) => client));
}
