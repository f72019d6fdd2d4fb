/**
 * One `/mcp` request served by the MCP SDK's web-standard Streamable HTTP transport on Node's own request and
 * response, in place of the SDK's Node transport (which converts through `@hono/node-server`).
 *
 * Why: that adapter sends a POST's event-stream headers about a millisecond after the request, while the tool runs.
 * The host then sets up its stream reader at the same moment, on a two-core machine taking CPU from the tool's own
 * turn (a `send_message`'s `agent.send` took ~0.8 ms longer than over the WebSocket, bench 13). Here a POST's answer
 * is held back for up to `HOLD_MS`: one that is whole by then (every call that does not wait on a model) goes out in
 * one write, as JSON when it is a single message (the client accepts either, Streamable HTTP §"Sending Messages to
 * the Server"); one that is not starts its event stream then, as before, and streams on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

/**
 * How long a POST's answer may wait to go out whole. Longer than a call that needs no model takes on a loaded
 * machine (~10 ms), far shorter than any header timeout a host may have; a call still running then streams as before.
 */
export const HOLD_MS = 200;

// How the SDK frames one message on an event stream (`writeSSEEvent`, no event store so no `id:`); its JSON is one line.
const EVENT_PREFIX = 'event: message\ndata: ';
const EVENT_SUFFIX = '\n\n';

/** Serves `req` through `transport` (`parsedBody`: a POST's body, already read and parsed) and writes its answer. */
export async function serveMcpExchange(
  transport: WebStandardStreamableHTTPServerTransport,
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody?: unknown,
): Promise<void> {
  const response = await transport.handleRequest(toWebRequest(req), { parsedBody });
  await writeResponse(response, res, req.method === 'POST' ? HOLD_MS : 0);
}

/** The request as the transport reads it: method, URL and headers (a POST's body is handed over parsed). */
function toWebRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: req.method, headers });
}

/** Writes `response` to `res`: at once when it is not an event stream, else as `HOLD_MS` above says (0: streams now). */
export async function writeResponse(response: Response, res: ServerResponse, holdMs: number): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  if (response.body === null) {
    res.writeHead(response.status, headers).end();
    return;
  }
  if (!(headers['content-type'] ?? '').startsWith('text/event-stream')) {
    const body = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, { ...headers, 'content-length': String(body.byteLength) }).end(body);
    return;
  }
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  // A host that goes away ends the stream, so the transport forgets it (its cancel handler).
  res.once('close', () => {
    if (!res.writableFinished) reader.cancel().catch(() => undefined);
  });
  let held: Uint8Array[] | null = [];
  const startStream = (): void => {
    if (held === null) return;
    res.writeHead(response.status, headers);
    res.flushHeaders();
    for (const chunk of held) res.write(chunk);
    held = null;
  };
  const timer = holdMs > 0 ? setTimeout(startStream, holdMs) : undefined;
  if (timer === undefined) startStream();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (held !== null) held.push(value);
      else if (!res.write(value)) await drained(res);
    }
  } catch (err) {
    clearTimeout(timer);
    res.destroy(err instanceof Error ? err : new Error(String(err)));
    return;
  }
  clearTimeout(timer);
  if (held === null) {
    res.end();
    return;
  }
  const body = Buffer.concat(held);
  const message = singleMessage(body.toString('utf8'));
  if (message === undefined) {
    res.writeHead(response.status, { ...headers, 'content-length': String(body.byteLength) }).end(body);
  } else {
    const json = Buffer.from(message, 'utf8');
    res
      .writeHead(response.status, {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(json.byteLength),
      })
      .end(json);
  }
}

/** The JSON of the one message `stream` frames, or undefined when it holds anything else (more, a comment, an id). */
export function singleMessage(stream: string): string | undefined {
  if (!stream.startsWith(EVENT_PREFIX) || !stream.endsWith(EVENT_SUFFIX)) return undefined;
  const end = stream.length - EVENT_SUFFIX.length;
  if (end <= EVENT_PREFIX.length || stream.indexOf('\n', EVENT_PREFIX.length) !== end) return undefined;
  return stream.slice(EVENT_PREFIX.length, end);
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
