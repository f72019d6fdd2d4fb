/**
 * The browser's transport for the typed client: the page's own WebSocket. A browser cannot set headers on it, so it
 * authenticates one of two ways. Without a token (the dashboard), the upgrade carries the page's HttpOnly session
 * cookie and offers the session's secret as a subprotocol; the gateway honours the pair from its own origin only:
 * nothing secret is in the URL. With a token (a script of
 * its own), the token goes as `?token=` on the upgrade: accepted, but the weaker form, since URLs end up in proxies'
 * access logs (docs/operations/tokens-and-scopes.md).
 */
import type { ClientSocket, OpenSocket } from './client-socket.js';

/** The part of the WHATWG WebSocket used here (typed locally: the Node build has no DOM library). */
export interface WhatwgWebSocket extends ClientSocket {
  binaryType: string;
  addEventListener(type: 'open' | 'error' | 'close', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
}

/** A WHATWG WebSocket class: the browser's global, or `ws`'s in tests (it implements the same interface). */
export type WhatwgWebSocketClass = new (url: string, protocols?: string[]) => WhatwgWebSocket;

/** The subprotocols that carry a dashboard session's secret (the gateway selects the first; cookie-session.ts). */
export function sessionProtocols(secret: string): string[] {
  return ['vigil-session', `vigil-session-secret.${secret}`];
}

/** A transport over `WebSocketClass` (by default the global `WebSocket`), offering `session`'s secret if given. */
export function browserSocket(WebSocketClass?: WhatwgWebSocketClass, session?: string): OpenSocket {
  return (url, token, listener) => {
    const Socket = WebSocketClass ?? (globalThis as { WebSocket?: WhatwgWebSocketClass }).WebSocket;
    if (Socket === undefined)
      throw new Error('This platform has no global WebSocket: in Node, use the client from vigil-client.js.');
    const withToken = new URL(url);
    // Only when asked: the dashboard passes none and rides its cookie.
    if (token !== undefined) withToken.searchParams.set('token', token);
    const ws =
      session === undefined || token !== undefined
        ? new Socket(withToken.toString())
        : new Socket(withToken.toString(), sessionProtocols(session));
    ws.binaryType = 'arraybuffer';
    let opened = false;
    ws.addEventListener('open', () => {
      opened = true;
      listener.open();
    });
    ws.addEventListener('message', ({ data }) => {
      if (typeof data === 'string') listener.message(data);
      else if (data instanceof ArrayBuffer) listener.message(new TextDecoder().decode(data));
    });
    // The browser hides the HTTP status of a refused upgrade (and the reason of a lost connection): say what it may be.
    ws.addEventListener('error', () =>
      listener.error(
        new Error(
          opened
            ? 'the connection was lost'
            : 'the gateway refused the connection or could not be reached (a browser does not tell which: a wrong token or an ended session, or a stopped daemon)',
        ),
      ),
    );
    ws.addEventListener('close', () => listener.close());
    return ws;
  };
}
