/**
 * `/mcp`: Vigil's MCP server over Streamable HTTP (CONTRACT §12): the server `vigil mcp` runs, its tools calling the
 * gateway in-process (`mcp-link.ts`). Stateful: `initialize` opens a session named by `Mcp-Session-Id`, kept in memory
 * only, so after a daemon restart an old id gets the SDK's own 404 "Session not found" and the host initialises again.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { MAX_FRAME_BYTES } from '../protocol/limits.js';
import { toolsForScope } from '../protocol/mcp-server-tools.js';
import type { McpToolName } from '../protocol/mcp-tool-names.js';
import type { Caller } from '../runtime/facade/tokens.facade.js';
import { runDetached } from '../shared/run-detached.js';
import { connectionRefusalMessage, type ConnectionCaps } from './connection-caps.js';
import { MAX_FRAME_DEPTH, nestsDeeperThan } from './frame-depth.js';
import { serveMcpExchange } from './mcp-exchange.js';
import { createInProcessLink, type InProcessLinkOptions } from './mcp-link.js';

/** How to serve `/mcp`. */
export interface McpRouteOptions extends InProcessLinkOptions {
  /** The tools hosts see (`VIGIL_MCP_SERVER_TOOLS`). */
  tools: readonly McpToolName[];
  /** The gateway's connection caps: each exchange (a GET's stream, a POST while its tool runs) holds a slot while open. */
  caps: ConnectionCaps;
  /** The gateway's URL, as tool errors name it (known once it listens). */
  where: () => string;
  /** Sessions held at once by the whole gateway (default `MAX_MCP_SESSIONS`). */
  maxSessions?: number;
  /** Sessions one token holds at once; past it, that token's least recently used is closed (default `MAX_MCP_SESSIONS_PER_TOKEN`). */
  maxSessionsPerToken?: number;
}

/** The sessions `/mcp` holds at once, all tokens together. */
export const MAX_MCP_SESSIONS = 64;

/**
 * The sessions one token holds at once: a quarter of the whole, so one token (a read token's host initialising in a
 * loop) pushes out only its own sessions and leaves the others three quarters at least.
 */
export const MAX_MCP_SESSIONS_PER_TOKEN = 16;

/** The `/mcp` endpoint. */
export interface McpRoute {
  /** Serves one request that has passed authentication as `caller`. */
  handle(req: IncomingMessage, res: ServerResponse, caller: Caller): void;
  /** Closes every session opened with token `tokenId` (revoked or expired). */
  closeFor(tokenId: string): void;
  /** Sessions open now. */
  sessionCount(): number;
  /** Closes every session (their streams end). */
  close(): Promise<void>;
}

interface Session {
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  /** The token that opened it: only that token may use it, and its scope decides the tools listed and callable. */
  caller: Caller;
}

const ALLOWED_METHODS = ['GET', 'POST', 'DELETE'];

/** The `/mcp` route; the MCP SDK's server side is loaded on its first request, so a daemon never using it never pays. */
export function createMcpRoute(options: McpRouteOptions): McpRoute {
  const maxSessions = options.maxSessions ?? MAX_MCP_SESSIONS;
  const maxPerToken = options.maxSessionsPerToken ?? MAX_MCP_SESSIONS_PER_TOKEN;
  // In least-recently-used order: a used session is moved to the end.
  const sessions = new Map<string, Session>();
  const heldBy = (caller: Caller): number => {
    let held = 0;
    for (const session of sessions.values()) if (session.caller.tokenId === caller.tokenId) held += 1;
    return held;
  };
  // The least recently used session `caller`'s token holds, closed; false when it holds none.
  const evictOldestOf = (caller: Caller): boolean => {
    for (const [id, session] of sessions) {
      if (session.caller.tokenId !== caller.tokenId) continue;
      sessions.delete(id);
      runDetached(session.server.close(), options.log, 'closing the least recently used MCP session of its token');
      return true;
    }
    return false;
  };
  let modules: ReturnType<typeof loadModules> | undefined;

  const open = async (caller: Caller): Promise<Session> => {
    const [{ WebStandardStreamableHTTPServerTransport }, { createVigilMcpServer }] = await (modules ??= loadModules());
    const link = createInProcessLink({ ...options, caller });
    const server = createVigilMcpServer({
      openLink: () => Promise.resolve(link),
      where: options.where(),
      // A host holding a read token is offered the reading tools only; its link refuses the rest anyway (-32003).
      tools: toolsForScope(options.tools, caller.scope),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // The WebSocket frame limit, so no path takes a larger message than /rpc does.
      maxRequestBodySize: MAX_FRAME_BYTES,
      onsessioninitialized: (id) => {
        // A host that vanished without DELETE holds its session until newer ones of the same token push it out; a
        // token never pushes out another's, so a read token's host cannot close an operator's session.
        while (heldBy(caller) >= maxPerToken || sessions.size >= maxSessions) {
          if (evictOldestOf(caller)) continue;
          // Only when initialize requests of other tokens raced this one past the check in serve(): the new session
          // goes, and the host's next request learns it is not found.
          runDetached(server.close(), options.log, 'closing an MCP session opened past the gateway-wide cap');
          return;
        }
        sessions.set(id, session);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    const session: Session = { server, transport, caller };
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return session;
  };

  const serve = async (req: IncomingMessage, res: ServerResponse, caller: Caller): Promise<void> => {
    if (!ALLOWED_METHODS.includes(req.method ?? '')) {
      res.setHeader('allow', ALLOWED_METHODS.join(', '));
      return sendRpcError(
        res,
        405,
        -32000,
        `Method not allowed: ${req.method ?? ''} (use ${ALLOWED_METHODS.join(', ')}).`,
      );
    }
    const header = req.headers['mcp-session-id'];
    const id = Array.isArray(header) ? header[0] : header;
    if (id !== undefined) {
      const session = sessions.get(id);
      // As the SDK answers an id it does not know: the host then initialises a new session.
      if (session === undefined) return sendRpcError(res, 404, -32001, 'Session not found');
      // A session is its opener's: another token (a narrower one above all) may not borrow it.
      if (session.caller.tokenId !== caller.tokenId)
        return sendRpcError(res, 403, -32003, 'Forbidden: this session was opened with another token.');
      sessions.delete(id);
      sessions.set(id, session);
      if (req.method !== 'POST') return serveMcpExchange(session.transport, req, res);
      const body = await readJsonBody(req, res);
      if (body !== undefined) await serveMcpExchange(session.transport, req, res, body.value);
      return;
    }
    if (req.method !== 'POST') return sendRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    const body = await readJsonBody(req, res);
    if (body === undefined) return;
    // The gateway is full of other tokens' sessions: this token has none of its own to give up, and takes none of theirs.
    if (sessions.size >= maxSessions && heldBy(caller) === 0) {
      res.setHeader('retry-after', '60');
      return sendRpcError(
        res,
        503,
        -32000,
        `Service Unavailable: the gateway holds ${maxSessions} MCP sessions, the most it may, none of them this token's; retry once one has closed.`,
      );
    }
    // Without a session only `initialize` is valid; the transport says so to anything else, which is then dropped.
    const session = await open(caller);
    await serveMcpExchange(session.transport, req, res, body.value);
    if (session.transport.sessionId === undefined) await session.server.close();
  };

  return {
    handle: (req, res, caller) => {
      const grant = options.caps.open(caller.tokenId);
      if (grant.kind === 'refused') {
        options.runtime.metrics.connectionRefused(grant.reason);
        return sendRpcError(
          res,
          503,
          -32000,
          `Service Unavailable: ${connectionRefusalMessage(grant.reason, options.caps)}.`,
        );
      }
      res.once('close', grant.release);
      runDetached(
        serve(req, res, caller).catch((err: unknown) => {
          if (!res.headersSent) sendRpcError(res, 500, -32603, 'Internal error');
          else res.destroy();
          throw err;
        }),
        options.log,
        'serving /mcp',
      );
    },
    sessionCount: () => sessions.size,
    closeFor: (tokenId) => {
      for (const [id, session] of sessions) {
        if (session.caller.tokenId !== tokenId) continue;
        sessions.delete(id);
        runDetached(session.server.close(), options.log, 'closing an MCP session whose token ended');
      }
    },
    close: async () => {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((session) => session.server.close().catch(() => undefined)));
    },
  };
}

function loadModules() {
  return Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('../client/mcp/vigil-mcp-server.js'),
  ]);
}

// The SDK's own error shape: a JSON-RPC error with a null id.
/**
 * A POST's body as JSON, read here and handed to the SDK's transport as parsed: it reads bodies through web streams,
 * which cost ~2–3 ms a call (bench 13, about the think's own time). Answers as the SDK would and resolves to
 * undefined when the body is over the WebSocket frame limit (413, told by its Content-Length before a byte is read,
 * or counted as it arrives), nests deeper than a frame may (400, -32600, as `/rpc` answers such a frame) or is not
 * JSON (400, -32700). Read by its events, not `for await`: the async iterator's promise per chunk and its end came to
 * ~0.1 ms a call on a loaded machine.
 */
function readJsonBody(req: IncomingMessage, res: ServerResponse): Promise<{ value: unknown } | undefined> {
  const tooLarge = (): void => {
    // The rest is not read: the connection closes after the answer rather than carry it.
    res.setHeader('connection', 'close');
    sendRpcError(res, 413, -32000, `Payload Too Large: Request body must not exceed ${MAX_FRAME_BYTES} bytes`);
    req.destroy();
  };
  if (Number(req.headers['content-length'] ?? 0) > MAX_FRAME_BYTES) {
    tooLarge();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const stop = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      bytes += chunk.byteLength;
      if (bytes <= MAX_FRAME_BYTES) {
        chunks.push(chunk);
        return;
      }
      stop();
      tooLarge();
      resolve(undefined);
    };
    const onEnd = (): void => {
      stop();
      const text = Buffer.concat(chunks).toString('utf8');
      // JSON.parse of a 1 MiB body nested 500,000 deep holds the heartbeat's thread for up to ~330 ms; this pass stops
      // at level 129. Refused unparsed, so no id can be known: null, as /rpc answers (and JSON-RPC §5 for any such).
      if (nestsDeeperThan(text, MAX_FRAME_DEPTH)) {
        sendRpcError(res, 400, -32600, 'Invalid Request', {
          reason: `the body nests deeper than ${MAX_FRAME_DEPTH} levels`,
          vigilCode: 'RPC_INVALID_REQUEST',
        });
        resolve(undefined);
        return;
      }
      try {
        resolve({ value: JSON.parse(text) as unknown });
      } catch {
        sendRpcError(res, 400, -32700, 'Parse error: Invalid JSON');
        resolve(undefined);
      }
    };
    const onError = (err: Error): void => {
      stop();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function sendRpcError(res: ServerResponse, status: number, code: number, message: string, data?: unknown): void {
  const error = data === undefined ? { code, message } : { code, message, data };
  const body = JSON.stringify({ jsonrpc: '2.0', error, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
