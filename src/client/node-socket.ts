/** Node's transport for the typed client: `ws`, with the token in an `Authorization: Bearer` header on the upgrade. */
import WebSocket, { type RawData } from 'ws';
import type { OpenSocket } from './client-socket.js';

// A client asks for whole checkpoints and exports: the gateway's 1 MiB frame limit is for what clients send it.
const MAX_RESULT_BYTES = 256 * 1024 * 1024;

/** Opens a `ws` socket; the token goes in a header, never in the URL, so no proxy or access log ever sees it. */
export const openNodeSocket: OpenSocket = (url, token, listener) => {
  const ws = new WebSocket(url, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    maxPayload: MAX_RESULT_BYTES,
    perMessageDeflate: false,
  });
  ws.on('open', () => listener.open());
  ws.on('message', (data) => listener.message(text(data)));
  // `ws` reports a refused upgrade as "Unexpected server response: 401".
  ws.on('error', (err) => listener.error(err));
  ws.on('close', () => listener.close());
  return ws;
};

function text(data: RawData): string {
  return (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer)).toString('utf8');
}
