/**
 * The typed client for the browser: the same client as Node's, over the page's own WebSocket. esbuild bundles this
 * entry, with the protocol's schemas, zod and the RxJS classes it uses, into the dashboard's `vigil-client.js`
 * (scripts/browser-bundle.mjs).
 */
import { z } from 'zod';
import { browserSocket } from './browser-socket.js';
import { ClientCore, connectClient } from './client-core.js';
import type { ConnectOptions } from './connect-options.js';

// The dashboard's Content-Security-Policy has no 'unsafe-eval': zod must not even probe `new Function` (Chromium
// reports the refused probe as a violation although zod catches it), so results are checked without its JIT.
z.config({ jitless: true });

export { rpcUrl, type ClientState, type ConnectOptions, type ReconnectOptions } from './connect-options.js';
export { RpcError } from './rpc-error.js';
export { VigilError } from '../errors.js';
export type { TypedMethods } from './client-methods.js';
export type { RpcMethodName, RpcParams, RpcResult } from '../protocol/rpc-methods.js';
export type { VigilEvent } from '../protocol/events.schema.js';
export type { LiveEvent, ReplyDeltaEvent } from '../protocol/live-events.schema.js';
export type { FeedEvent } from './client-core.js';
export type { DroppedNotification } from '../protocol/event-feed.schema.js';
export type { ConversationEntry } from '../protocol/conversation.schema.js';
export type { RestoreConfirmation } from '../protocol/checkpoints.schema.js';

/** How a browser connects: a client's options, and the dashboard's session secret when it rides its session. */
export interface BrowserConnectOptions extends ConnectOptions {
  /**
   * The dashboard's session secret (handed to the page once at sign-in): with the session cookie, it opens `/rpc`.
   * Offered as a WebSocket subprotocol, since a browser cannot set headers on an upgrade.
   */
  session?: string | undefined;
}

/** Opens a client and resolves once connected; rejects with CLIENT_DISCONNECTED if it cannot (a browser hides a 401). */
export function connect(options: BrowserConnectOptions): Promise<VigilClient> {
  return connectClient(VigilClient, options);
}

/**
 * A connection to the gateway over the browser's WebSocket: by the page's session (its cookie and secret) without a
 * token, or with the token as `?token=` (the weaker form); use `connect()` to get one.
 */
export class VigilClient extends ClientCore {
  constructor(options: BrowserConnectOptions) {
    super(options, browserSocket(undefined, options.session));
  }
}
