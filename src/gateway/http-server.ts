/** The gateway's one HTTP server on VIGIL_HOST:VIGIL_PORT: `ws://…/rpc`, `/healthz` (no auth), `/events` (SSE), `/metrics`, `/mcp`, the dashboard at `/`. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { silentLogger } from '../shared/logger.js';
import { createDashboardRoutes, DASHBOARD_SESSION_PATH, SIGN_IN_PARAM } from './dashboard-route.js';
import { SESSION_PROTOCOL } from './cookie-session.js';
import { CLOSE_CODES } from './gateway-faults.js';
import { createAuthFailureLog, createCallerAuth, tokenFromRequest } from './gateway-auth.js';
import { createThrottledAuth, type AuthOutcome } from './auth-throttle.js';
import { ConnectionCaps, DEFAULT_MAX_CONNECTIONS, connectionRefusalMessage } from './connection-caps.js';
import { createMcpRoute } from './mcp-route.js';
import { connectionLimitsOf, originPolicyFor } from './gateway-settings.js';
import { createA2aRoute } from './a2a-route.js';
import { createOriginGuard, isPolicyOrigin, refusalMessage, type OriginPolicy } from './request-origin.js';
import { metricsRoute } from './metrics-route.js';
import { ALL_METHODS } from './methods/index.js';
import { buildOpenRpcDocument } from './openrpc.js';
import { RpcConnection } from './rpc-connection.js';
import { serveEventStream, type SseStream } from './sse-feed.js';
import { isVigilError } from '../errors.js';
import type { Caller, TokenEnded } from '../runtime/facade/tokens.facade.js';
import { assertCallerMay } from './scope-check.js';
import { handleOAuthCallback } from './oauth-callback-route.js';
import { CHANNEL_EVENTS_PATH, handleChannelEvents } from './channel-events-route.js';
import { OAUTH_CALLBACK_PATH } from '../protocol/tools.schema.js';
import { MAX_FRAME_BYTES } from '../protocol/limits.js';
import type { Gateway, GatewayOptions, RouteHandler } from './gateway-options.js';
import { refuseUnauthorized, refuseUpgrade, sendJson, tooManyFailures, unauthorizedMessage } from './http-refusals.js';
import { DEFAULT_MCP_TOOLS } from '../protocol/mcp-tool-names.js';

// Still exported from here, where the library (and its users) have always found it.
export { MAX_FRAME_BYTES };
export type { Gateway, GatewayOptions, GatewayStats, RouteHandler } from './gateway-options.js';

/** Starts the HTTP server and resolves once it listens. */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { runtime } = options;
  const { metrics } = runtime;
  const log = options.log ?? silentLogger;
  const { rateLimit, limits } = connectionLimitsOf(options);
  const { subscriberBuffer } = limits;
  // The daemon's token is `operate`; a scoped token is what its record says, as long as it lives.
  const authenticate = createCallerAuth(options.token, runtime.tokens);
  // Refusals are logged with the caller's address (throttled), never with what it sent as a token; an address that
  // sent too many wrong tokens is answered 429 before its token is looked at.
  const admit = createThrottledAuth({
    authenticate,
    logRefusal: createAuthFailureLog(log),
    now: () => runtime.now(),
    limit: options.failedAuthLimit,
    onThrottled: () => metrics.authThrottled(),
  });
  let openRpc: Record<string, unknown> | undefined;
  const discover = (): Record<string, unknown> => (openRpc ??= buildOpenRpcDocument());

  // The newest seq emitted, so a live-only subscription can tell its client where it began.
  let lastSeq = 0;
  const seqTracker = runtime.events$.subscribe((event) => (lastSeq = Math.max(lastSeq, event.seq)));
  lastSeq = Math.max(lastSeq, await runtime.lastEventSeq());

  // More connections would buy more throughput past the per-connection rate limit: counted in all and per token.
  const caps = new ConnectionCaps(options.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
  const connections = new Map<WebSocket, RpcConnection>();
  /** The connections a dashboard opened by its browser session (they end with a "sign out everywhere"). */
  const sessionSockets = new Set<WebSocket>();
  const streams = new Map<ServerResponse, SseStream>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    perMessageDeflate: false,
    // The dashboard offers its session's secret as a second subprotocol; only the first is ever selected (a browser
    // fails a handshake that selects none of those it offered), so the secret never comes back in an answer.
    handleProtocols: (offered) => (offered.has(SESSION_PROTOCOL) ? SESSION_PROTOCOL : false),
  });
  const dashboard = createDashboardRoutes({
    token: options.token,
    tokens: runtime.tokens,
    now: () => runtime.now(),
    ...(options.sessionHours === undefined ? {} : { sessionHours: options.sessionHours }),
    takeSignInCode: (code) => runtime.tokens.takeSignInCode(code),
    // The front door's origins (`policy`, below): behind a proxy that rewrites Host, the page's cookie works too.
    isGatewayOrigin: (origin) => isPolicyOrigin(policy, origin),
  });
  let boundUrl = '';
  // Each MCP session is one connection's worth: the same rate limit, its tools calling the same handlers.
  const mcp = createMcpRoute({
    runtime,
    log,
    discover,
    rateLimit,
    subscriberBuffer,
    caps,
    tools: options.mcpTools ?? DEFAULT_MCP_TOOLS,
    where: () => boundUrl,
  });
  const a2a = createA2aRoute({ runtime, log, baseUrl: () => options.publicUrl?.replace(/\/+$/, '') ?? boundUrl });
  const routes: Record<string, RouteHandler> = {
    '/events': (req, res, url, caller) =>
      serveEventStream(req, res, url, {
        runtime,
        log,
        streams,
        caps,
        caller: caller!,
        limits: { ...limits, keepAliveMs: 15_000 },
      }),
    '/metrics': metricsRoute(metrics, log),
    ...dashboard.routes,
    ...options.routes,
  };

  // DNS rebinding: Host and Origin before anything else, /healthz included. Built now, so a bad allow-list entry fails
  // the start; rebuilt for the bound port once listening (port 0), before any request can arrive.
  const policyFor = (port: number): OriginPolicy => originPolicyFor(options, port);
  let policy = policyFor(options.port);
  const guardOrigin = createOriginGuard(() => policy, log);

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const where = guardOrigin(req, url);
    if (!where.ok) {
      // An MCP host reads a JSON-RPC error, as the MCP SDK's own host and origin validation answers.
      if (url.pathname === '/mcp')
        sendJson(res, 403, { jsonrpc: '2.0', error: { code: -32000, message: refusalMessage(where) }, id: null });
      else sendJson(res, 403, { error: refusalMessage(where), refused: where.header });
      return;
    }
    // No token: the browser coming back from an authorization server has none; the sign-in's state is the credential.
    if (url.pathname === OAUTH_CALLBACK_PATH) {
      handleOAuthCallback(req, res, url, runtime.mcpServers, log);
      return;
    }
    // No token: a chat platform's push (Slack's Events API) is judged by its own signature, in the channel's adapter.
    const channelEvents = CHANNEL_EVENTS_PATH.exec(url.pathname);
    if (channelEvents !== null) {
      handleChannelEvents(req, res, channelEvents[1]!, runtime.channels, log);
      return;
    }
    if (url.pathname === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
      sendJson(res, 200, { ok: true, beatCount: runtime.status().beatCount });
      return;
    }
    if (a2a.serves(url.pathname)) {
      a2a.handle(req, res, url, admit);
      return;
    }
    // The token itself, never the dashboard's session cookie: an MCP host is a client like any other.
    if (url.pathname === '/mcp') {
      const outcome = admit(req, url);
      if (outcome.kind === 'admitted') mcp.handle(req, res, outcome.caller);
      else refuseUnauthorized(res, outcome);
      return;
    }
    // A one-time sign-in link (`vigil dashboard`): its code is the credential, good once; no token comes with it.
    if (url.pathname === '/' && url.searchParams.has(SIGN_IN_PARAM)) {
      dashboard.signIn(req, res, url);
      return;
    }
    // The page trades its token (Bearer) for its session cookie; dashboard-route.ts answers 204, 401 or 403. The
    // header only: the query string is left out, since this path exists to keep the token out of URLs.
    if (url.pathname === DASHBOARD_SESSION_PATH && req.method === 'POST') {
      const outcome = admit(req, new URL(url.pathname, url));
      if (outcome.kind === 'throttled') refuseUnauthorized(res, outcome);
      else dashboard.exchange(req, res, outcome.kind === 'admitted' ? outcome.caller : null);
      return;
    }
    // Authentication first: an unauthenticated caller learns nothing about which paths exist. The dashboard's
    // session cookie opens its static files here (its WebSocket at the upgrade), never /events or /metrics; it is
    // checked first, so a reload of the page is not taken for a request that lacks the token.
    const session = dashboard.hasSession(req, url);
    // A dashboard file opened by the cookie has no caller: the files are the same for every scope.
    const outcome = session ? null : admit(req, url);
    if (outcome !== null && outcome.kind !== 'admitted') {
      if (outcome.kind === 'refused' && dashboard.refusePage(req, res, url)) return;
      refuseUnauthorized(res, outcome);
      return;
    }
    const caller = outcome?.caller ?? null;
    const route = routes[url.pathname];
    if (route === undefined) {
      sendJson(res, 404, { error: `no route ${url.pathname}` });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      sendJson(res, 405, { error: `${req.method ?? ''} is not allowed on ${url.pathname}` });
      return;
    }
    if (caller !== null && !mayUse(url.pathname, caller, res)) return;
    route(req, res, url, caller);
  });

  // HTTP's -32003: 403 with the scope the path needs. The built-in paths all need `read`, which every token holds.
  const mayUse = (path: string, caller: Caller, res: ServerResponse): boolean => {
    try {
      assertCallerMay(`GET ${path}`, options.routeScopes?.[path] ?? 'read', caller, runtime.tokens);
      return true;
    } catch (err) {
      if (!isVigilError(err, 'AUTH_FORBIDDEN')) throw err;
      sendJson(res, 403, { error: err.message, ...(err.data as object), vigilCode: err.code });
      return false;
    }
  };

  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://localhost');
    const where = guardOrigin(req, url);
    if (!where.ok) return refuseUpgrade(socket, 403, refusalMessage(where));
    if (url.pathname !== '/rpc') return refuseUpgrade(socket, 404, `no WebSocket endpoint ${url.pathname}; use /rpc`);
    // CONTRACT §4: without a valid token, HTTP 401 and no socket. Authenticated here, once for the connection's life:
    // by the token, or (when none is presented) by the dashboard's session cookie from the gateway's own origin (its
    // scope is its token's). A cookie is no guess at a token, so it neither drains nor meets the failed-auth throttle.
    const cookieCaller = tokenFromRequest(req, url) === undefined ? dashboard.upgradeCaller(req) : null;
    const outcome: AuthOutcome = cookieCaller !== null ? { kind: 'admitted', caller: cookieCaller } : admit(req, url);
    if (outcome.kind === 'throttled') return refuseUpgrade(socket, 429, tooManyFailures(outcome), outcome.retryAfterMs);
    if (outcome.kind === 'refused') {
      const message =
        outcome.crossSite === true ? unauthorizedMessage(outcome) : 'unauthorized: a valid token is required';
      return refuseUpgrade(socket, 401, message);
    }
    const { caller } = outcome;
    const grant = caps.open(caller.tokenId);
    if (grant.kind === 'refused') {
      metrics.connectionRefused(grant.reason);
      return refuseUpgrade(socket, 503, connectionRefusalMessage(grant.reason, caps));
    }
    // The socket's close, not the WebSocket's: a handshake ws refuses never becomes one, and its slot comes back too.
    socket.once('close', grant.release);
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (cookieCaller !== null) sessionSockets.add(ws);
      connections.set(
        ws,
        new RpcConnection(ws, {
          runtime,
          log,
          handlers: ALL_METHODS,
          discover,
          limits,
          lastSeq: () => lastSeq,
          remoteAddress: req.socket.remoteAddress,
          caller,
        }),
      );
      metrics.connectionDelta(1);
      ws.once('close', () => {
        connections.delete(ws);
        sessionSockets.delete(ws);
        metrics.connectionDelta(-1);
      });
      // Revoked (or expired) while the upgrade completed: ended$ has passed, so it is closed here.
      const standing = runtime.tokens.standing(caller);
      if (standing !== 'live') ws.close(CLOSE_CODES.policyViolation, `the token was ${standing}`);
    });
  });

  // Every browser signed out: what the dashboards opened closes now (they then ask for a new sign-in).
  const signOuts = runtime.tokens.sessionsRevoked$.subscribe(() => {
    for (const ws of sessionSockets) ws.close(CLOSE_CODES.policyViolation, 'the session was signed out');
  });

  // A token revoked or expired: whatever was opened with it closes now, saying why.
  const endings = runtime.tokens.ended$.subscribe(({ tokenId, reason }: TokenEnded) => {
    const why = `token_${reason}`;
    for (const [ws, connection] of connections)
      if (connection.caller.tokenId === tokenId) ws.close(CLOSE_CODES.policyViolation, `the token was ${reason}`);
    for (const stream of streams.values()) if (stream.caller.tokenId === tokenId) stream.end(why);
    mcp.closeFor(tokenId);
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error): void => {
      endings.unsubscribe();
      signOuts.unsubscribe();
      seqTracker.unsubscribe();
      reject(err);
    };
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  policy = policyFor(address.port);
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  boundUrl = `http://${host}:${address.port}`;
  return {
    url: boundUrl,
    server,
    stats: () => ({
      connections: [...connections.values()].map((connection) => connection.stats()),
      streams: [...streams.values()].map((stream) => stream.stats()),
      mcpSessions: mcp.sessionCount(),
    }),
    close: async () => {
      const closing = [...connections.keys()].map(
        (ws) =>
          new Promise<void>((resolve) => {
            ws.once('close', () => resolve());
            ws.close(CLOSE_CODES.goingAway, 'the daemon is stopping');
            // A client that never answers the close frame is not waited for.
            setTimeout(() => ws.terminate(), 1000).unref();
          }),
      );
      for (const res of streams.keys()) res.end();
      await Promise.all([...closing, mcp.close()]);
      a2a.close();
      wss.close();
      endings.unsubscribe();
      signOuts.unsubscribe();
      seqTracker.unsubscribe();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
