/** The little the typed client needs of a WebSocket, so one client runs over `ws` in Node and over the browser's own. */

/** `readyState` of an open socket (the same number in the WHATWG WebSocket and in `ws`). */
export const SOCKET_OPEN = 1;
/** `readyState` of a closed socket. */
export const SOCKET_CLOSED = 3;

/** A connection being opened, open, or closed. */
export interface ClientSocket {
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number;
  /** Sends one text frame. */
  send(text: string): void;
  /** Starts the closing handshake; `close` follows. */
  close(code: number, reason: string): void;
}

/** What a socket tells the client: `open` (unless it fails), each frame as text, an `error` if any, then `close` once. */
export interface SocketListener {
  open(): void;
  message(text: string): void;
  /** Why the connection failed or was lost; a refused token says `401` in the message where the platform lets it know. */
  error(err: Error): void;
  close(): void;
}

/** Opens a socket to `url` (`ws(s)://…/rpc`), presenting `token` the one way its platform can. */
export type OpenSocket = (url: string, token: string | undefined, listener: SocketListener) => ClientSocket;
