/**
 * The `VigilLink` of `/mcp`: the MCP tools call the gateway's own RPC handlers in-process, through the same router
 * (params validated, requests counted, the same error codes) and under the same per-connection rate limit, so what a
 * tool can do over `/mcp` is what the token's holder can do over `/rpc`. Errors come back as the client's `RpcError`,
 * so a tool result names them exactly as `vigil mcp` does.
 */
import { Observable } from 'rxjs/internal/Observable';
import { RpcError } from '../client/rpc-error.js';
import type { VigilLink } from '../client/mcp/vigil-link.js';
import { VigilError } from '../errors.js';
import type { VigilEvent } from '../protocol/events.schema.js';
import type { RpcMethodName, RpcResult } from '../protocol/rpc-methods.js';
import type { Runtime } from '../runtime/runtime.js';
import type { Caller } from '../runtime/facade/tokens.facade.js';
import type { VigilLogger } from '../shared/logger.js';
import { EventSubscriber } from './event-subscriber.js';
import { toWireError } from './gateway-faults.js';
import { ALL_METHODS } from './methods/index.js';
import { countRequest, routeRequest, type RpcContext, type SubscriptionHost } from './rpc-router.js';
import { TokenBucket, type RateLimit } from './token-bucket.js';

/** What an in-process link needs. */
export interface InProcessLinkOptions {
  runtime: Runtime;
  log: VigilLogger;
  /** The OpenRPC document (`rpc.discover`). */
  discover: () => Record<string, unknown>;
  /** `VIGIL_RPC_RATE_LIMIT` / `_BURST`: one link is one connection's worth. */
  rateLimit: RateLimit;
  /** Events held for the link's feed before they are dropped (`VIGIL_SUBSCRIBER_BUFFER`). */
  subscriberBuffer: number;
}

/** A link for one caller: its calls are checked against that caller's scope. */
export interface CallerLinkOptions extends InProcessLinkOptions {
  caller: Caller;
}

// The link's feed is `subscribe()`, an Observable; `events.subscribe` as a call has no socket to deliver to.
const NO_SUBSCRIPTIONS: SubscriptionHost = {
  subscribe: () => {
    throw new VigilError('RPC_INVALID_REQUEST', "events.subscribe needs a connection; use the link's subscribe().");
  },
  unsubscribe: () => {
    throw new VigilError('SUBSCRIPTION_NOT_FOUND', 'This link holds no subscriptions.');
  },
};

/** A link that runs each call through the gateway's router, as a connection of its own. */
export function createInProcessLink(options: CallerLinkOptions): VigilLink {
  const { runtime, log, rateLimit } = options;
  const bucket = new TokenBucket(rateLimit, () => runtime.now());
  const ctx: RpcContext = {
    runtime,
    log,
    subscriptions: NO_SUBSCRIPTIONS,
    afterResponse: (fn) => queueMicrotask(fn),
    discover: options.discover,
    caller: options.caller,
  };
  return {
    // The feed below subscribes to the bus synchronously: live from the moment subscribe() returns.
    liveAtOnce: true,
    async call<M extends RpcMethodName>(method: M, params?: unknown): Promise<RpcResult<M>> {
      try {
        if (!bucket.take()) {
          // Refused before the router, which counts everything else (as a connection's refusals are).
          countRequest(runtime, method, -32029);
          throw rateLimited(rateLimit, bucket.retryAfterMs());
        }
        const request = { jsonrpc: '2.0' as const, id: 0, method, params: (params ?? {}) as Record<string, unknown> };
        return (await routeRequest(request, ALL_METHODS, ctx)) as RpcResult<M>;
      } catch (err) {
        throw new RpcError(toWireError(err, log, method), method);
      }
    },
    subscribe(types?: readonly string[], feed: { after?: number } = {}): Observable<VigilEvent> {
      return new Observable<VigilEvent>((observer) => {
        const subscriber = new EventSubscriber<VigilEvent | undefined>({
          live$: runtime.events$,
          history: (query) => runtime.history(query),
          types,
          after: feed.after,
          bufferSize: options.subscriberBuffer,
          // Delivered synchronously to the observer: nothing waits to be written, so nothing is ever dropped.
          highWaterBytes: Number.POSITIVE_INFINITY,
          maxDropped: options.subscriberBuffer * 100,
          // No live-only events: send_message waits for the final agent.reply, never its pieces.
          format: { event: (event) => event, dropped: () => undefined, live: () => undefined },
          sink: {
            bufferedAmount: () => 0,
            write: (event) => {
              if (event !== undefined) observer.next(event);
            },
            disconnect: (reason) => observer.error(new VigilError('CLIENT_DISCONNECTED', reason)),
          },
          onReplayError: (err) => log.warn({ err }, 'MCP event feed replay failed; the feed goes on live'),
        });
        subscriber.start();
        return () => subscriber.close();
      });
    },
  };
}

function rateLimited({ perSecond, burst }: RateLimit, retryAfterMs: number): VigilError {
  return new VigilError(
    'RPC_RATE_LIMITED',
    `Rate limited: this MCP session may make ${perSecond} requests per second in bursts of up to ${burst} (VIGIL_RPC_RATE_LIMIT, VIGIL_RPC_RATE_BURST); retry in ${retryAfterMs} ms.`,
    { data: { vigilCode: 'RPC_RATE_LIMITED', limitPerSecond: perSecond, burst, retryAfterMs } },
  );
}
