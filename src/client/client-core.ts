/**
 * The typed gateway client, whatever carries it: `client.heartbeat.status()` and every other method with types inferred
 * from the schemas, `subscribe(types)` as an RxJS Observable, request timeouts, and reconnection with backoff that
 * resubscribes each feed after the last seq it saw. Node's entry (`vigil-client.ts`) gives it `ws`, the browser's
 * (`browser.ts`) the page's WebSocket.
 */
// RxJS's classes one module each: the package index loads all of RxJS (~220 modules), a third of a CLI call's start-up.
import { BehaviorSubject } from 'rxjs/internal/BehaviorSubject';
import { Observable } from 'rxjs/internal/Observable';
import { Subject } from 'rxjs/internal/Subject';
import { VigilError, describeError, type JsonRpcErrorObject } from '../errors.js';
import type { DroppedNotification } from '../protocol/event-feed.schema.js';
import type { RpcMethodName, RpcParams, RpcResult } from '../protocol/rpc-methods.js';
import type { VigilEvent } from '../protocol/events.schema.js';
import { deliverToFeed, type FeedEvent, type FeedState } from './client-feed.js';
import { buildMethods, checkedResult, type TypedMethods } from './client-methods.js';
import { SOCKET_CLOSED, SOCKET_OPEN, type ClientSocket, type OpenSocket } from './client-socket.js';
import {
  backoffDelayMs,
  reconnectBackoff,
  rpcUrl,
  type ClientState,
  type ConnectOptions,
  type ReconnectOptions,
} from './connect-options.js';
import { RpcError } from './rpc-error.js';

export type { FeedEvent } from './client-feed.js';

type Timer = ReturnType<typeof setTimeout>;

interface Pending {
  method: string;
  settle: (error: JsonRpcErrorObject | undefined, result: unknown) => void;
  fail: (err: Error) => void;
  timer: Timer;
}

/** Typed method namespaces (`client.goals.add({title})`) are merged into the class from the catalogue. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging -- the constructor assigns every namespace (buildMethods over the catalogue), so the merged members do exist
export interface ClientCore extends TypedMethods {}

/** A connection to the gateway over the sockets `openSocket` makes; each entry's `VigilClient` names its transport. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- the other half of the merge above
export class ClientCore {
  /** The connection's state over time. */
  readonly state$ = new BehaviorSubject<ClientState>('connecting');
  /** `events.dropped` notices: the gateway skipped events for a subscription that fell behind. */
  readonly dropped$: Observable<DroppedNotification>;
  private readonly options: Required<Omit<ConnectOptions, 'token' | 'reconnect'>> & { token: string | undefined };
  private readonly backoff: Required<ReconnectOptions> | null;
  private readonly droppedSubject = new Subject<DroppedNotification>();
  private readonly pending = new Map<number, Pending>();
  private readonly feeds = new Set<FeedState>();
  private readonly feedsByServerId = new Map<string, FeedState>();
  private openWaiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  private readonly openSocket: OpenSocket;
  private socket: ClientSocket | undefined;
  /** Resolves `close()` once the socket it closed has closed. */
  private afterClose: (() => void) | undefined;
  private nextId = 1;
  private attempts = 0;
  private everOpened = false;
  private closedByUser = false;
  private lastError: Error | undefined;
  private reconnectTimer: Timer | undefined;

  constructor(options: ConnectOptions, openSocket: OpenSocket) {
    this.openSocket = openSocket;
    this.options = {
      url: rpcUrl(options.url),
      token: options.token,
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      validateResults: options.validateResults ?? true,
    };
    this.backoff = reconnectBackoff(options.reconnect ?? true);
    this.dropped$ = this.droppedSubject.asObservable();
    Object.assign(
      this,
      buildMethods((method, params) => this.call(method, params as never)),
    );
    this.open();
  }

  /** Resolves once the connection is open (at once if it is). */
  ready(): Promise<void> {
    const state = this.state$.value;
    if (state === 'open') return Promise.resolve();
    if (state === 'closed') return Promise.reject(this.closedError());
    return new Promise((resolve, reject) => this.openWaiters.push({ resolve, reject }));
  }

  /** Calls `method`; resolves with its result, rejects with `RpcError` (the server's answer) or a VigilError (CLIENT_*). */
  async call<M extends RpcMethodName>(method: M, params?: RpcParams<M>): Promise<RpcResult<M>> {
    if (this.state$.value !== 'open') await this.readyWithin(method);
    return new Promise((resolve, reject) => {
      this.request(method, params ?? {}, {
        settle: (error, result) => {
          if (error !== undefined) reject(new RpcError(error, method));
          else {
            try {
              resolve(this.options.validateResults ? checkedResult(method, result) : (result as RpcResult<M>));
            } catch (err) {
              reject(err);
            }
          }
        },
        fail: reject,
      });
    });
  }

  /**
   * The event feed (exact types or `prefix.*`; none: everything). Replays after `after` when given. Survives
   * reconnection: the feed is resubscribed after the last seq it delivered, so nothing is missed or repeated.
   */
  subscribe(types?: readonly string[], options: { after?: number } = {}): Observable<VigilEvent> {
    return this.feed(types, options, false) as Observable<VigilEvent>;
  }

  /**
   * The event feed as `subscribe` gives it, plus the live-only events `types` names exactly (`agent.reply_delta`: a
   * reply's text as it is written, no seq, never replayed), each in its place among the others.
   */
  subscribeFeed(types: readonly string[], options: { after?: number } = {}): Observable<FeedEvent> {
    return this.feed(types, options, true);
  }

  private feed(
    types: readonly string[] | undefined,
    options: { after?: number },
    withLive: boolean,
  ): Observable<FeedEvent> {
    return new Observable<FeedEvent>((observer) => {
      const feed: FeedState = { types, cursor: options.after, serverId: undefined, observer, closed: false, withLive };
      this.feeds.add(feed);
      if (this.state$.value === 'open') this.startFeed(feed);
      return () => {
        feed.closed = true;
        this.feeds.delete(feed);
        if (feed.serverId !== undefined) {
          this.feedsByServerId.delete(feed.serverId);
          if (this.state$.value === 'open')
            this.request('events.unsubscribe', { subscription: feed.serverId }, { settle: () => {}, fail: () => {} });
        }
      };
    });
  }

  /** Closes the connection for good; feeds complete, pending calls fail with CLIENT_DISCONNECTED. */
  async close(): Promise<void> {
    if (this.closedByUser) return;
    this.closedByUser = true;
    clearTimeout(this.reconnectTimer);
    for (const feed of [...this.feeds]) feed.observer.complete();
    const socket = this.socket;
    if (socket !== undefined && socket.readyState !== SOCKET_CLOSED) {
      await new Promise<void>((resolve) => {
        this.afterClose = resolve;
        socket.close(1000, 'client closed');
      });
    } else {
      this.onClosed();
    }
  }

  // While reconnecting, a call waits for the connection, but no longer than its own timeout.
  private async readyWithin(method: string): Promise<void> {
    let timer: Timer | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new VigilError(
              'CLIENT_TIMEOUT',
              `${method} found no open connection within ${this.options.requestTimeoutMs} ms.`,
            ),
          ),
        this.options.requestTimeoutMs,
      );
    });
    try {
      await Promise.race([this.ready(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private open(): void {
    const { url, token } = this.options;
    // Sockets report asynchronously, so `socket` is assigned before any of these runs.
    const socket: ClientSocket = this.openSocket(url, token, {
      open: () => {
        this.attempts = 0;
        this.everOpened = true;
        this.lastError = undefined;
        this.state$.next('open');
        for (const waiter of this.openWaiters.splice(0)) waiter.resolve();
        for (const feed of this.feeds) this.startFeed(feed);
      },
      message: (text) => this.onMessage(text),
      error: (err) => (this.lastError = err),
      close: () => {
        if (this.socket === socket) this.onClosed();
        this.afterClose?.();
        this.afterClose = undefined;
      },
    });
    this.socket = socket;
  }

  private onClosed(): void {
    const lost = this.closedError();
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.fail(lost);
    }
    this.feedsByServerId.clear();
    for (const feed of this.feeds) feed.serverId = undefined;
    const unauthorized = /\b401\b/.test(this.lastError?.message ?? '');
    const retry =
      !this.closedByUser &&
      this.everOpened &&
      !unauthorized &&
      this.backoff !== null &&
      this.attempts < this.backoff.maxAttempts;
    if (!retry) {
      this.state$.next('closed');
      for (const waiter of this.openWaiters.splice(0)) waiter.reject(lost);
      for (const feed of [...this.feeds]) feed.observer.error(lost);
      this.state$.complete();
      this.droppedSubject.complete();
      return;
    }
    const delay = backoffDelayMs(this.backoff, this.attempts);
    this.attempts += 1;
    this.state$.next('reconnecting');
    this.reconnectTimer = setTimeout(() => this.open(), delay);
  }

  private closedError(): VigilError {
    const reason = this.lastError === undefined ? 'the connection closed' : describeError(this.lastError);
    if (/\b401\b/.test(reason)) {
      return new VigilError('GATEWAY_UNAUTHORIZED', `The gateway at ${this.options.url} refused the token (HTTP 401).`);
    }
    if (/\b429\b/.test(reason)) {
      return new VigilError(
        'GATEWAY_THROTTLED',
        `The gateway at ${this.options.url} answered 429: too many wrong tokens came from this address, so no token from it is checked for a while.`,
      );
    }
    return new VigilError('CLIENT_DISCONNECTED', `No connection to the gateway at ${this.options.url}: ${reason}.`);
  }

  // Feeds are registered synchronously as the subscribe answer arrives: its first event may follow in the same chunk.
  private startFeed(feed: FeedState): void {
    const params = {
      ...(feed.types === undefined ? {} : { types: [...feed.types] }),
      ...(feed.cursor === undefined ? {} : { after: feed.cursor }),
    };
    this.request('events.subscribe', params, {
      settle: (error, result) => {
        if (error !== undefined) {
          if (!feed.closed) feed.observer.error(new RpcError(error, 'events.subscribe'));
          return;
        }
        const { subscription, after } = result as RpcResult<'events.subscribe'>;
        if (feed.closed) {
          this.request('events.unsubscribe', { subscription }, { settle: () => {}, fail: () => {} });
          return;
        }
        feed.serverId = subscription;
        feed.cursor ??= after;
        this.feedsByServerId.set(subscription, feed);
      },
      // A lost connection resubscribes on reconnect; a timeout is retried then too.
      fail: () => {},
    });
  }

  private request(method: string, params: unknown, handlers: Pick<Pending, 'settle' | 'fail'>): void {
    const socket = this.socket;
    if (socket === undefined || socket.readyState !== SOCKET_OPEN) {
      handlers.fail(this.closedError());
      return;
    }
    const id = this.nextId;
    this.nextId += 1;
    const timer = setTimeout(() => {
      this.pending.delete(id);
      handlers.fail(
        new VigilError('CLIENT_TIMEOUT', `${method} got no answer within ${this.options.requestTimeoutMs} ms.`, {
          data: { method },
        }),
      );
    }, this.options.requestTimeoutMs);
    this.pending.set(id, { method, timer, ...handlers });
    socket.send(JSON.stringify({ jsonrpc: '2.0', method, params, id }));
  }

  private onMessage(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    for (const item of Array.isArray(message) ? message : [message]) this.onItem(item as Record<string, unknown>);
  }

  private onItem(item: Record<string, unknown>): void {
    if (typeof item !== 'object' || item === null) return;
    if (typeof item['id'] === 'number' && ('result' in item || 'error' in item)) {
      const pending = this.pending.get(item['id']);
      if (pending === undefined) return;
      this.pending.delete(item['id']);
      clearTimeout(pending.timer);
      pending.settle(item['error'] as JsonRpcErrorObject | undefined, item['result']);
      return;
    }
    const params = item['params'] as Record<string, unknown> | undefined;
    if (item['method'] === 'events.event' && params !== undefined) {
      const feed = this.feedsByServerId.get(params['subscription'] as string);
      if (feed !== undefined) deliverToFeed(feed, params['event'] as FeedEvent);
    } else if (item['method'] === 'events.dropped' && params !== undefined) {
      this.droppedSubject.next(params as DroppedNotification);
    }
  }
}

/**
 * The entries' `connect()`: opens a `Client` (a ClientCore over its entry's socket) and resolves once it is connected;
 * rejects as `ready()` does if it cannot.
 */
export async function connectClient<Client extends ClientCore>(
  Client: new (options: ConnectOptions) => Client,
  options: ConnectOptions,
): Promise<Client> {
  const client = new Client(options);
  await client.ready();
  return client;
}
