/**
 * A2A on the gateway: the Agent Card at `/.well-known/agent-card.json` (no token: a card is how a caller learns which
 * token to bring) and the JSON-RPC endpoint `/a2a` (the gateway's tokens as HTTP bearers). Every call needs a live
 * token; sending a message needs `talk`, as `agent.send` does; a task is read and cancelled only by the token that
 * created it. The SDK is loaded on the first request, so a daemon never called over A2A never pays for it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isVigilError } from '../errors.js';
import { MAX_FRAME_BYTES } from '../protocol/limits.js';
import type { Caller } from '../runtime/facade/tokens.facade.js';
import type { Runtime } from '../runtime/runtime.js';
import type { VigilLogger } from '../shared/logger.js';
import { runDetached } from '../shared/run-detached.js';
import { A2A_PATH, AGENT_CARD_PATH } from './a2a/agent-card.js';
import type { A2aServer } from './a2a/a2a-server.js';
import type { AuthOutcome } from './auth-throttle.js';
import { MAX_FRAME_DEPTH, nestsDeeperThan } from './frame-depth.js';
import { refuseUnauthorized, sendJson } from './http-refusals.js';
import { assertCallerMay } from './scope-check.js';

/** The methods that hand the agent a message: they need `talk`; the others (reading a task) need `read`. */
const SENDING = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);

export interface A2aRouteOptions {
  runtime: Runtime;
  log: VigilLogger;
  /** The gateway's URL as callers reach it (`VIGIL_PUBLIC_URL`, else where it listens). */
  baseUrl: () => string;
}

export interface A2aRoute {
  /** True for the paths this route serves. */
  serves(pathname: string): boolean;
  /** Serves one request; `admit` authenticates it (the card needs no token). */
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    admit: (req: IncomingMessage, url: URL) => AuthOutcome,
  ): void;
  close(): void;
}

export function createA2aRoute(options: A2aRouteOptions): A2aRoute {
  const { runtime, log } = options;
  let server: Promise<A2aServer> | undefined;
  const load = (): Promise<A2aServer> =>
    (server ??= import('./a2a/a2a-server.js')
      .then(({ createA2aServer }) => createA2aServer(runtime, options.baseUrl(), log))
      .catch((err: unknown) => {
        // Built again by the next request: a failed read of the open tasks (the store busy, the runtime stopping)
        // must not leave A2A answering 500 until a restart.
        server = undefined;
        throw err;
      }));

  const serve = async (req: IncomingMessage, res: ServerResponse, caller: Caller): Promise<void> => {
    const text = await readBody(req, res);
    if (text === undefined) return;
    let body: unknown;
    try {
      if (nestsDeeperThan(text, MAX_FRAME_DEPTH))
        return rpcError(res, 400, null, -32600, 'Invalid Request: nested too deep');
      body = JSON.parse(text);
    } catch {
      return rpcError(res, 400, null, -32700, 'Parse error: Invalid JSON');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return rpcError(res, 400, null, -32600, 'Invalid Request: one JSON-RPC request object is expected');
    const { method: named } = body as { method?: unknown };
    const method = typeof named === 'string' ? named : '';
    try {
      assertCallerMay(`A2A ${method}`, SENDING.has(method) ? 'talk' : 'read', caller, runtime.tokens);
    } catch (err) {
      if (!isVigilError(err, 'AUTH_FORBIDDEN')) throw err;
      // HTTP's 403, as for any path: -32003 in a JSON-RPC error would read, to an A2A client, as A2A's own -32003
      // ("push notifications not supported").
      return sendJson(res, 403, { error: err.message, ...(err.data as object), vigilCode: err.code });
    }
    const a2a = await load();
    sendJson(res, 200, await a2a.handle(body, caller, req.headers));
  };

  return {
    serves: (pathname) => pathname === AGENT_CARD_PATH || pathname === A2A_PATH,
    handle(req, res, url, admit) {
      if (url.pathname === AGENT_CARD_PATH) {
        if (req.method !== 'GET' && req.method !== 'HEAD') return notAllowed(res, 'GET, HEAD', url.pathname, req);
        runDetached(
          load().then((a2a) => {
            // The card differs by the caller's A2A-Version (1.0, or 0.3 when absent): a cache must keep them apart.
            res.setHeader('vary', 'A2A-Version');
            sendJson(res, 200, a2a.card(req.headers['a2a-version']));
          }),
          log,
          'serving the A2A agent card',
        );
        return;
      }
      if (req.method !== 'POST') return notAllowed(res, 'POST', url.pathname, req);
      const outcome = admit(req, url);
      if (outcome.kind !== 'admitted') return refuseUnauthorized(res, outcome);
      runDetached(
        serve(req, res, outcome.caller).catch((err: unknown) => {
          if (!res.headersSent) rpcError(res, 500, null, -32603, 'Internal error');
          else res.destroy();
          throw err;
        }),
        log,
        'serving /a2a',
      );
    },
    close: () => {
      runDetached(server?.then((a2a) => a2a.close()) ?? Promise.resolve(), log, 'closing the A2A server');
    },
  };
}

function notAllowed(res: ServerResponse, allow: string, path: string, req: IncomingMessage): void {
  res.setHeader('allow', allow);
  sendJson(res, 405, { error: `${req.method ?? ''} is not allowed on ${path}` });
}

function rpcError(
  res: ServerResponse,
  status: number,
  id: string | number | null,
  code: number,
  message: string,
  data?: unknown,
): void {
  sendJson(res, status, {
    jsonrpc: '2.0',
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  });
}

/** The body as text, at most the WebSocket frame limit (past it: 413 and undefined). */
function readBody(req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.byteLength;
      if (bytes > MAX_FRAME_BYTES) {
        res.setHeader('connection', 'close');
        rpcError(res, 413, null, -32000, `Payload Too Large: the body must not exceed ${MAX_FRAME_BYTES} bytes`);
        req.destroy();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
