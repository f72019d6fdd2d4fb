/** The gateway's HTTP refusals: JSON answers, the 401/429 for a missing or throttled token, and a refused WebSocket upgrade. */
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AuthOutcome } from './auth-throttle.js';

export function refuseUpgrade(socket: Socket, status: number, message: string, retryAfterMs?: number): void {
  const body = JSON.stringify({ error: message });
  const retryAfter = retryAfterMs === undefined ? '' : `Retry-After: ${Math.ceil(retryAfterMs / 1000)}\r\n`;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n${status === 401 ? 'WWW-Authenticate: Bearer\r\n' : ''}${retryAfter}\r\n${body}`,
  );
}

export function refuseUnauthorized(res: ServerResponse, outcome: Exclude<AuthOutcome, { kind: 'admitted' }>): void {
  if (outcome.kind === 'throttled') {
    res.setHeader('retry-after', String(Math.ceil(outcome.retryAfterMs / 1000)));
    sendJson(res, 429, { error: tooManyFailures(outcome) });
    return;
  }
  res.setHeader('www-authenticate', 'Bearer');
  sendJson(res, 401, { error: unauthorizedMessage(outcome) });
}

export function unauthorizedMessage(outcome: Extract<AuthOutcome, { kind: 'refused' }>): string {
  return outcome.crossSite === true
    ? 'unauthorized: a token in the query string is not accepted from a page on another site (Sec-Fetch-Site); open the gateway itself, or send "Authorization: Bearer TOKEN"'
    : 'unauthorized: send the token as "Authorization: Bearer TOKEN" or ?token=TOKEN';
}

export function tooManyFailures({ retryAfterMs, address }: { retryAfterMs: number; address: string }): string {
  const seconds = Math.ceil(retryAfterMs / 1000);
  return (
    `too many wrong tokens came from this address (${address}): for ${seconds} s no token from it is checked, the ` +
    `right one included; the daemon runs on. Wait ${seconds} s and try again, and look for a client sending a stale token`
  );
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    // A refusal may quote what the request sent (a Host, an Origin): no browser may read it as anything but JSON.
    'x-content-type-options': 'nosniff',
  });
  res.end(text);
}
