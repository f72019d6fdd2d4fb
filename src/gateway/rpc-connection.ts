/** One WebSocket client on /rpc: JSON-RPC frames in, responses and event notifications out, with backpressure both ways and a rate limit. */
import type { RawData, WebSocket } from 'ws';
import { VigilError } from '../errors.js';
import type { Runtime } from '../runtime/runtime.js';
import type { VigilLogger } from '../shared/logger.js';
import { runDetached } from '../shared/run-detached.js';
import type { SubscribeParams, SubscribeResult } from '../protocol/event-feed.schema.js';
import { EventSubscriber, type FeedSink, type SubscriberStats } from './event-subscriber.js';
import { jsonRpcFeedFormat } from './feed-format.js';
import { MAX_FRAME_DEPTH, nestsDeeperThan } from './frame-depth.js';
import { CLOSE_CODES, protocolError, toWireError } from './gateway-faults.js';
import { handleJsonRpcFrame } from './json-rpc.js';
import { countRequest, routeRequest, type RpcContext, type RpcHandlers, type SubscriptionHost } from './rpc-router.js';
import { DEFAULT_RATE_LIMIT, TokenBucket, type RateLimit } from './token-bucket.js';
import type { Caller } from '../runtime/facade/tokens.facade.js';

/** While a connection stays over its rate limit, one warn line per this many ms says how many requests were refused. */
export const RATE_LIMIT_LOG_EVERY_MS = 10_000;

/** Feed and backpressure limits of a connection. */
export interface ConnectionLimits {
  maxSubscriptions: number;
  subscriberBuffer: number;
  /** A subscription stops writing while the socket holds this many unsent bytes. */
  highWaterBytes: number;
  /** Events dropped in one stretch before a subscriber's connection is closed (1008). */
  maxDropped: number;
  /** Frames being answered at once before the connection stops reading from its socket. */
  maxInFlight: number;
  /** Requests per second with a burst, per connection (default `DEFAULT_RATE_LIMIT`; `perSecond: 0` = off). */
  rateLimit?: RateLimit;
}

/** What every connection shares. */
export interface ConnectionDeps {
  runtime: Runtime;
  log: VigilLogger;
  handlers: RpcHandlers;
  discover: () => Record<string, unknown>;
  /** The newest seq the bus has emitted (a live-only subscription continues after it). */
  lastSeq: () => number;
  limits: ConnectionLimits;
  /** The client's address for logs (`req.socket.remoteAddress`); unset: read from the WebSocket's socket. */
  remoteAddress?: string | undefined;
  /** Who opened the connection: authenticated once, at the upgrade; every request is checked against its scope. */
  caller: Caller;
}

/** A connection's counters, for tests and metrics. */
export interface ConnectionStats {
  bufferedAmount: number;
  inFlight: number;
  subscriptions: Record<string, SubscriberStats>;
  /** Requests refused with -32029 since the connection opened. */
  rateLimited: number;
}

let nextSubscription = 0;

/** Serves one WebSocket until it closes. */
export class RpcConnection implements SubscriptionHost {
  private readonly subscribers = new Map<string, EventSubscriber>();
  private readonly sink: FeedSink;
  private inFlight = 0;
  private paused = false;
  /** Frames read before a pause took effect, answered in order once the connection catches up. */
  private readonly waiting: string[] = [];
  private drainScheduled = false;
  private closed = false;
  private readonly bucket: TokenBucket;
  private readonly rateLimit: RateLimit;
  private readonly remoteAddress: string | undefined;
  private rateLimited = 0;
  private unloggedRefusals = 0;
  private refusalsLoggedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly ws: WebSocket,
    private readonly deps: ConnectionDeps,
  ) {
    const { runtime } = deps;
    this.rateLimit = deps.limits.rateLimit ?? DEFAULT_RATE_LIMIT;
    this.bucket = new TokenBucket(this.rateLimit, () => runtime.now());
    this.remoteAddress = deps.remoteAddress ?? socketAddressOf(ws);
    this.sink = {
      bufferedAmount: () => ws.bufferedAmount,
      write: (frame) => this.send(frame),
      disconnect: (reason) => {
        this.closeSubscribers();
        ws.close(CLOSE_CODES.policyViolation, reason.slice(0, 120));
      },
    };
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('close', () => this.onClose());
    // ws closes with 1009 (maxPayload) or 1007 (bad UTF-8) by itself and reports it here; nothing else to do.
    ws.on('error', (err) => deps.log.debug({ err }, 'gateway connection error'));
  }

  /** Opens an event subscription; its events start flowing once the response with its id is written. */
  subscribe(params: SubscribeParams, startAfterResponse: (start: () => void) => void): SubscribeResult {
    const { limits, runtime } = this.deps;
    if (this.subscribers.size >= limits.maxSubscriptions) {
      throw new VigilError(
        'SUBSCRIPTION_LIMIT',
        `This connection already holds ${this.subscribers.size} subscriptions, the most VIGIL_MAX_SUBSCRIPTIONS allows; unsubscribe one first.`,
        { data: { vigilCode: 'SUBSCRIPTION_LIMIT', limit: limits.maxSubscriptions } },
      );
    }
    nextSubscription += 1;
    const id = `sub-${nextSubscription}`;
    const after = params.after ?? this.deps.lastSeq();
    const subscriber = new EventSubscriber({
      live$: runtime.events$,
      liveOnly$: runtime.liveEvents$,
      history: (query) => runtime.history(query),
      types: params.types,
      after: params.after,
      liveAfter: after,
      bufferSize: limits.subscriberBuffer,
      highWaterBytes: limits.highWaterBytes,
      maxDropped: limits.maxDropped,
      sink: this.sink,
      format: jsonRpcFeedFormat(id),
      onReplayError: (err) =>
        this.deps.log.warn({ err, subscription: id }, 'event replay failed; the feed goes on live'),
      onDropped: (count) => runtime.metrics.eventsDropped(count),
    });
    this.subscribers.set(id, subscriber);
    startAfterResponse(() => subscriber.start());
    return { subscription: id, after };
  }

  /** Ends one of this connection's subscriptions. */
  unsubscribe(id: string): void {
    const subscriber = this.subscribers.get(id);
    if (subscriber === undefined) {
      throw new VigilError('SUBSCRIPTION_NOT_FOUND', `This connection has no subscription ${JSON.stringify(id)}.`, {
        data: { vigilCode: 'SUBSCRIPTION_NOT_FOUND', subscription: id },
      });
    }
    subscriber.close();
    this.subscribers.delete(id);
  }

  /** Who opened the connection. */
  get caller(): Caller {
    return this.deps.caller;
  }

  /** Current counters. */
  stats(): ConnectionStats {
    const subscriptions: Record<string, SubscriberStats> = {};
    for (const [id, subscriber] of this.subscribers) subscriptions[id] = subscriber.stats();
    return {
      bufferedAmount: this.ws.bufferedAmount,
      inFlight: this.inFlight,
      subscriptions,
      rateLimited: this.rateLimited,
    };
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (isBinary) {
      this.ws.close(CLOSE_CODES.unsupportedData, 'binary frames are not supported: send JSON-RPC as text frames');
      return;
    }
    const text = (
      Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)
    ).toString('utf8');
    // ws.pause() stops reading the socket, but ws still emits every frame of the chunk it already read: those wait
    // here unanswered. Answering them would let a client that never reads make the server buffer one answer per
    // request it packed into a chunk (a thousand small requests, a thousand large answers).
    if (this.paused) {
      this.waiting.push(text);
      return;
    }
    this.dispatch(text);
    this.applyBackpressure();
  }

  private dispatch(text: string): void {
    this.inFlight += 1;
    // Answered concurrently; a throw past the router (an answer that cannot be serialised) is logged, not fatal.
    const answered = this.answer(text).finally(() => {
      this.inFlight -= 1;
      this.applyBackpressure();
    });
    runDetached(answered, this.deps.log, 'answering a JSON-RPC frame');
  }

  private async answer(text: string): Promise<void> {
    const { runtime, log, handlers, discover } = this.deps;
    if (nestsDeeperThan(text, MAX_FRAME_DEPTH)) {
      // Refused unparsed, so its id cannot be known: null, as for any request whose id cannot be read (§5).
      const reason = `the frame nests deeper than ${MAX_FRAME_DEPTH} levels`;
      countRequest(runtime, '', -32600);
      this.send(
        JSON.stringify({
          jsonrpc: '2.0',
          error: toWireError(protocolError('RPC_INVALID_REQUEST', { reason }), log),
          id: null,
        }),
      );
      return;
    }
    const afterResponse: Array<() => void> = [];
    const ctx: RpcContext = {
      runtime,
      log,
      subscriptions: this,
      discover,
      afterResponse: (fn) => afterResponse.push(fn),
      caller: this.deps.caller,
    };
    const response = await handleJsonRpcFrame(
      text,
      // Each request of a batch takes its own token: batching is no way around the limit.
      async (request) => {
        this.admit();
        return routeRequest(request, handlers, ctx);
      },
      (err, method) => {
        const error = toWireError(err, log, method);
        // Protocol faults and rate-limit refusals never reach the router, which counts everything else.
        if (error.code === -32700 || error.code === -32600 || error.code === -32029)
          countRequest(runtime, method, error.code);
        return error;
      },
    );
    if (response !== null) this.send(JSON.stringify(response));
    // Only now may a new subscription's events follow: its id is on the wire ahead of them.
    for (const fn of afterResponse) fn();
  }

  /** Takes a token for one request, or throws RPC_RATE_LIMITED (the request is then not run at all). */
  private admit(): void {
    if (this.bucket.take()) return;
    this.rateLimited += 1;
    this.unloggedRefusals += 1;
    const { perSecond, burst } = this.rateLimit;
    const retryAfterMs = this.bucket.retryAfterMs();
    // A flood must not become a log flood: one line per stretch, then one per interval with the count.
    const now = this.deps.runtime.now();
    if (now - this.refusalsLoggedAt >= RATE_LIMIT_LOG_EVERY_MS) {
      this.deps.log.warn(
        { remoteAddress: this.remoteAddress, refused: this.unloggedRefusals, limitPerSecond: perSecond, burst },
        'gateway connection over its rate limit; refusing requests with -32029',
      );
      this.refusalsLoggedAt = now;
      this.unloggedRefusals = 0;
    }
    throw new VigilError(
      'RPC_RATE_LIMITED',
      `Rate limited: this connection may send ${perSecond} requests per second in bursts of up to ${burst} (VIGIL_RPC_RATE_LIMIT, VIGIL_RPC_RATE_BURST); retry in ${retryAfterMs} ms.`,
      { data: { vigilCode: 'RPC_RATE_LIMITED', limitPerSecond: perSecond, burst, retryAfterMs } },
    );
  }

  private send(frame: string): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(frame, () => this.onWritten());
  }

  private onWritten(): void {
    for (const subscriber of this.subscribers.values()) subscriber.pump();
    this.applyBackpressure();
  }

  // A client that sends faster than it reads stops being read: TCP pushes back on it, and memory stays flat.
  private applyBackpressure(): void {
    if (this.closed) return;
    if (this.overloaded()) {
      if (!this.paused) {
        this.paused = true;
        this.ws.pause();
      }
      return;
    }
    if (!this.paused || this.drainScheduled) return;
    // Waiting frames are answered one batch per turn of the event loop, never in one long run of microtasks (cheap
    // answers resolve without I/O): timers — the heartbeat — and other sockets get their turn between batches.
    this.drainScheduled = true;
    setImmediate(() => {
      this.drainScheduled = false;
      this.drain();
    });
  }

  private drain(): void {
    if (this.closed) return;
    while (this.waiting.length > 0 && !this.overloaded()) this.dispatch(this.waiting.shift()!);
    if (this.waiting.length > 0 || this.overloaded()) return;
    this.paused = false;
    this.ws.resume();
  }

  private overloaded(): boolean {
    const { highWaterBytes, maxInFlight } = this.deps.limits;
    return this.inFlight >= maxInFlight || this.ws.bufferedAmount >= highWaterBytes * 4;
  }

  private onClose(): void {
    this.closed = true;
    this.waiting.length = 0;
    this.closeSubscribers();
    if (this.unloggedRefusals > 0) {
      this.deps.log.warn(
        { remoteAddress: this.remoteAddress, refused: this.unloggedRefusals, refusedInAll: this.rateLimited },
        'gateway connection over its rate limit closed',
      );
    }
  }

  private closeSubscribers(): void {
    for (const subscriber of this.subscribers.values()) subscriber.close();
    this.subscribers.clear();
  }
}

// ws has no public accessor for the client's address; the gateway passes `remoteAddress`, this is the fallback.
function socketAddressOf(ws: WebSocket): string | undefined {
  return (ws as unknown as { _socket?: { remoteAddress?: string } })._socket?.remoteAddress;
}
