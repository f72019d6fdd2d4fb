/** `GET /events`: the event feed as Server-Sent Events; `Last-Event-ID` (or `?after=`) resumes after a seq. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Runtime } from '../runtime/runtime.js';
import { EventSubscriber, type SubscriberStats } from './event-subscriber.js';
import { sseFeedFormat } from './feed-format.js';
import type { VigilLogger } from '../shared/logger.js';
import type { Caller } from '../runtime/facade/tokens.facade.js';
import { connectionRefusalMessage, type ConnectionCaps } from './connection-caps.js';

/** SSE limits (the same as a WebSocket subscription's). */
export interface SseLimits {
  subscriberBuffer: number;
  highWaterBytes: number;
  maxDropped: number;
  /** Comment lines at this interval keep proxies from closing an idle stream. */
  keepAliveMs: number;
}

/** A live SSE stream as the gateway holds it: its counters, who opened it, and how to end it with a stated reason. */
export interface SseStream {
  stats: () => SubscriberStats;
  caller: Caller;
  /** Ends the stream with a last named event `closed` carrying `{reason}` (e.g. `token_revoked`). */
  end: (reason: string) => void;
}

const SEQ = /^\d{1,16}$/;

/** Reads `types` (comma-separated) and the resume point; null `after` means "live from now". */
function feedQuery(
  req: IncomingMessage,
  url: URL,
): { types: string[] | undefined; after: number | undefined } | string {
  const typesParam = url.searchParams.get('types');
  const types =
    typesParam === null
      ? undefined
      : typesParam
          .split(',')
          .map((t) => t.trim())
          .filter((t) => t !== '');
  const header = req.headers['last-event-id'];
  const resume = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('after') ?? undefined;
  if (resume === undefined || resume.trim() === '') return { types, after: undefined };
  if (!SEQ.test(resume.trim()))
    return `Last-Event-ID/after must be an event seq (a non-negative integer), not ${JSON.stringify(resume)}.`;
  return { types, after: Number(resume.trim()) };
}

/** Serves one SSE stream until the client goes away; `streams` holds it (and its counters) while it lives. */
export function serveEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  deps: {
    runtime: Runtime;
    log: VigilLogger;
    limits: SseLimits;
    streams: Map<ServerResponse, SseStream>;
    /** The gateway's connection caps: a stream holds a slot while it is open. */
    caps: ConnectionCaps;
    caller: Caller;
  },
): void {
  const query = feedQuery(req, url);
  if (typeof query === 'string') {
    res.writeHead(400, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: query }));
    return;
  }
  const grant = deps.caps.open(deps.caller.tokenId);
  if (grant.kind === 'refused') {
    deps.runtime.metrics.connectionRefused(grant.reason);
    const body = JSON.stringify({ error: connectionRefusalMessage(grant.reason, deps.caps), reason: grant.reason });
    res.writeHead(503, { 'content-type': 'application/json; charset=utf-8' }).end(body);
    return;
  }
  res.once('close', grant.release);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  // A first line at once, so `curl -N` shows the stream is open before the first event.
  res.write(': vigil event feed\nretry: 2000\n\n');
  const { runtime, limits } = deps;
  const { metrics } = runtime;
  const subscriber = new EventSubscriber({
    live$: runtime.events$,
    liveOnly$: runtime.liveEvents$,
    history: (q) => runtime.history(q),
    types: query.types,
    after: query.after,
    bufferSize: limits.subscriberBuffer,
    highWaterBytes: limits.highWaterBytes,
    maxDropped: limits.maxDropped,
    format: sseFeedFormat,
    sink: {
      bufferedAmount: () => res.writableLength,
      write: (frame) => {
        if (!res.writableEnded && !res.destroyed) res.write(frame, () => subscriber.pump());
      },
      disconnect: () => res.destroy(),
    },
    onReplayError: (err) => deps.log.warn({ err }, 'SSE replay failed; the feed goes on live'),
    onDropped: (count) => metrics.eventsDropped(count),
  });
  const keepAlive = setInterval(() => {
    if (res.writableLength === 0) res.write(': keep-alive\n\n');
  }, limits.keepAliveMs);
  keepAlive.unref();
  deps.streams.set(res, {
    stats: () => subscriber.stats(),
    caller: deps.caller,
    end: (reason) => {
      subscriber.close();
      if (!res.writableEnded && !res.destroyed) res.end(`event: closed\ndata: ${JSON.stringify({ reason })}\n\n`);
    },
  });
  metrics.connectionDelta(1);
  res.on('close', () => {
    metrics.connectionDelta(-1);
    clearInterval(keepAlive);
    subscriber.close();
    deps.streams.delete(res);
  });
  subscriber.start();
}
