/** One WebSocket client on /rpc: JSON-RPC frames in, responses and event notifications out, with backpressure both ways. */
import type { RawData, WebSocket } from 'ws';
import { VigilError } from '../errors.js';
import type { Runtime } from '../runtime/runtime.js';
import type { VigilLogger } from '../shared/logger.js';
import type { SubscribeParams, SubscribeResult } from './event-feed.schema.js';
import { EventSubscriber, type FeedSink, type SubscriberStats } from './event-subscriber.js';
import { jsonRpcFeedFormat } from './feed-format.js';
import { CLOSE_CODES, toWireError } from './gateway-faults.js';
import { handleJsonRpcFrame } from './json-rpc.js';
import { routeRequest, type RpcContext, type RpcHandlers, type SubscriptionHost } from './rpc-router.js';

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
}

/** A connection's counters, for tests and metrics. */
export interface ConnectionStats {
  bufferedAmount: number;
  inFlight: number;
  subscriptions: Record<string, SubscriberStats>;
}

let nextSubscription = 0;

/** Serves one WebSocket until it closes. */
export class RpcConnection implements SubscriptionHost {
  private readonly subscribers = new Map<string, EventSubscriber>();
  private readonly sink: FeedSink;
  private inFlight = 0;
  private paused = false;
  private closed = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly deps: ConnectionDeps,
  ) {
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
      history: (query) => runtime.history(query),
      types: params.types,
      after: params.after,
      liveAfter: after,
      bufferSize: limits.subscriberBuffer,
      highWaterBytes: limits.highWaterBytes,
      maxDropped: limits.maxDropped,
      sink: this.sink,
      format: jsonRpcFeedFormat(id),
      onReplayError: (err) => this.deps.log.warn({ err, subscription: id }, 'event replay failed; the feed goes on live'),
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

  /** Current counters. */
  stats(): ConnectionStats {
    const subscriptions: Record<string, SubscriberStats> = {};
    for (const [id, subscriber] of this.subscribers) subscriptions[id] = subscriber.stats();
    return { bufferedAmount: this.ws.bufferedAmount, inFlight: this.inFlight, subscriptions };
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (isBinary) {
      this.ws.close(CLOSE_CODES.unsupportedData, 'binary frames are not supported: send JSON-RPC as text frames');
      return;
    }
    const text = (Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8');
    this.inFlight += 1;
    this.applyBackpressure();
    void this.answer(text).finally(() => {
      this.inFlight -= 1;
      this.applyBackpressure();
    });
  }

  private async answer(text: string): Promise<void> {
    const { runtime, log, handlers, discover } = this.deps;
    const afterResponse: Array<() => void> = [];
    const ctx: RpcContext = { runtime, log, subscriptions: this, discover, afterResponse: (fn) => afterResponse.push(fn) };
    const response = await handleJsonRpcFrame(
      text,
      (request) => routeRequest(request, handlers, ctx),
      (err, method) => toWireError(err, log, method),
    );
    if (response !== null) this.send(JSON.stringify(response));
    // Only now may a new subscription's events follow: its id is on the wire ahead of them.
    for (const fn of afterResponse) fn();
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
    const { highWaterBytes, maxInFlight } = this.deps.limits;
    const overloaded = this.inFlight >= maxInFlight || this.ws.bufferedAmount >= highWaterBytes * 4;
    if (overloaded && !this.paused) {
      this.paused = true;
      this.ws.pause();
    } else if (!overloaded && this.paused) {
      this.paused = false;
      this.ws.resume();
    }
  }

  private onClose(): void {
    this.closed = true;
    this.closeSubscribers();
  }

  private closeSubscribers(): void {
    for (const subscriber of this.subscribers.values()) subscriber.close();
    this.subscribers.clear();
  }
}
