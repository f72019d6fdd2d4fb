// @ts-check
/**
 * The typed client's browser twin: the same method namespaces as src/client (`client.goals.add({title})`, typed by
 * JSDoc from the one RPC catalogue) over the browser's own WebSocket, with call timeouts, reconnection, and feeds
 * that resubscribe after the last seq they delivered.
 */

/** @typedef {import('../../protocol/rpc-methods.js').RpcMethodName} RpcMethodName */
/** @typedef {import('../../client/client-methods.js').TypedMethods} TypedMethods */
/** @typedef {import('../../protocol/events.schema.js').VigilEvent} VigilEvent */
/** @typedef {import('../../protocol/event-feed.schema.js').DroppedNotification} DroppedNotification */
/** @typedef {'connecting' | 'open' | 'reconnecting' | 'closed'} ClientState */
/**
 * @template {RpcMethodName} M
 * @typedef {import('../../protocol/rpc-methods.js').RpcParams<M>} RpcParams
 */
/**
 * @template {RpcMethodName} M
 * @typedef {import('../../protocol/rpc-methods.js').RpcResult<M>} RpcResult
 */

/**
 * @typedef {object} BrowserClientOptions
 * @property {string} url The daemon's `http(s)://host:port` (the page's own origin).
 * @property {string} token The gateway token, sent as `?token=` (browsers cannot set headers on a WebSocket).
 * @property {number} [requestTimeoutMs] A call without an answer after this long fails (default 15 s).
 * @property {(state: ClientState) => void} [onState] Told of every state change.
 */

/**
 * @typedef {object} Feed
 * @property {string[] | undefined} types
 * @property {number | undefined} cursor The newest seq delivered; a resubscription continues after it.
 * @property {string | undefined} serverId
 * @property {(event: VigilEvent) => void} onEvent
 * @property {((notice: DroppedNotification) => void) | undefined} onDropped
 * @property {boolean} closed
 */

/** A JSON-RPC error answer as an exception: `code` and `data` exactly as on the wire (like src/client's RpcError). */
export class RpcError extends Error {
  /**
   * @param {{ code: number, message: string, data?: unknown }} error
   * @param {string} method
   */
  constructor(error, method) {
    super(error.message);
    this.name = 'RpcError';
    /** The JSON-RPC error code (CONTRACT §4). */
    this.code = error.code;
    /** @type {unknown} */
    this.data = error.data;
    this.method = method;
  }
}

// Subscriptions hold connection state, so they are `subscribe()`, not plain methods (as in src/client).
const STATEFUL = new Set(['events.subscribe', 'events.unsubscribe']);

/** One WebSocket connection to the gateway; use `connect()` to get one with its method namespaces. */
export class BrowserVigilClient {
  /** @param {BrowserClientOptions} options */
  constructor(options) {
    const url = new URL('/rpc', options.url);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('token', options.token);
    this.url = url.toString();
    this.requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
    this.onState = options.onState ?? (() => {});
    /** @type {ClientState} */
    this.state = 'connecting';
    /** @type {Map<number, { method: string, resolve: (value: any) => void, reject: (err: Error) => void, timer: ReturnType<typeof setTimeout> }>} */
    this.pending = new Map();
    /** @type {Set<Feed>} */
    this.feeds = new Set();
    /** @type {Map<string, Feed>} */
    this.feedsByServerId = new Map();
    /** @type {Array<{ resolve: () => void, reject: (err: Error) => void }>} */
    this.openWaiters = [];
    /** @type {WebSocket | undefined} */
    this.ws = undefined;
    this.nextId = 1;
    this.attempts = 0;
    this.everOpened = false;
    this.closedByUser = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.reconnectTimer = undefined;
    this.open();
  }

  /** Resolves once the connection is open; rejects if the first attempt fails (a wrong token, a stopped daemon). */
  ready() {
    if (this.state === 'open') return Promise.resolve();
    if (this.state === 'closed') return Promise.reject(new Error('The connection to the gateway is closed.'));
    return new Promise((resolve, reject) => this.openWaiters.push({ resolve: () => resolve(undefined), reject }));
  }

  /**
   * Calls `method`; resolves with its result, rejects with `RpcError` (the server's answer) or an Error (no answer).
   * @template {RpcMethodName} M
   * @param {M} method
   * @param {RpcParams<M>} [params]
   * @returns {Promise<RpcResult<M>>}
   */
  async call(method, params) {
    if (this.state !== 'open') {
      // While reconnecting, a call waits for the connection, but no longer than its own timeout.
      /** @type {ReturnType<typeof setTimeout> | undefined} */
      let timer;
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${method} found no open connection within ${this.requestTimeoutMs} ms.`)), this.requestTimeoutMs);
      });
      await Promise.race([this.ready(), timeout]).finally(() => clearTimeout(timer));
    }
    return this.request(method, /** @type {RpcParams<M>} */ (params ?? {}));
  }

  /**
   * The event feed (exact types or `prefix.*`; none: everything), replayed after `after` when given. It survives
   * reconnection: the feed is resubscribed after the last seq it delivered, so nothing is missed or repeated.
   * @param {string[] | undefined} types
   * @param {(event: VigilEvent) => void} onEvent
   * @param {{ after?: number, onDropped?: (notice: DroppedNotification) => void }} [options]
   * @returns {() => void} Ends the feed.
   */
  subscribe(types, onEvent, options = {}) {
    /** @type {Feed} */
    const feed = { types, cursor: options.after, serverId: undefined, onEvent, onDropped: options.onDropped, closed: false };
    this.feeds.add(feed);
    if (this.state === 'open') this.startFeed(feed);
    return () => {
      feed.closed = true;
      this.feeds.delete(feed);
      if (feed.serverId !== undefined) {
        this.feedsByServerId.delete(feed.serverId);
        if (this.state === 'open') this.request('events.unsubscribe', { subscription: feed.serverId }).catch(() => {});
      }
    };
  }

  /** Closes the connection for good. */
  close() {
    this.closedByUser = true;
    clearTimeout(this.reconnectTimer);
    this.ws?.close(1000, 'page closed');
    this.setState('closed');
  }

  /** @param {ClientState} state */
  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.onState(state);
  }

  open() {
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener('open', () => {
      this.attempts = 0;
      this.everOpened = true;
      this.setState('open');
      for (const waiter of this.openWaiters.splice(0)) waiter.resolve();
      for (const feed of this.feeds) this.startFeed(feed);
    });
    ws.addEventListener('message', (message) => this.onMessage(message.data));
    ws.addEventListener('close', () => {
      if (this.ws === ws) this.onClosed();
    });
  }

  onClosed() {
    const lost = new Error('The connection to the gateway was lost.');
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.reject(lost);
    }
    this.feedsByServerId.clear();
    for (const feed of this.feeds) feed.serverId = undefined;
    // A first attempt that fails is most likely a wrong token (the browser hides the 401): no point retrying it.
    if (this.closedByUser || !this.everOpened) {
      this.setState('closed');
      const refused = new Error('The gateway refused the connection: is the token right, and is the daemon running?');
      for (const waiter of this.openWaiters.splice(0)) waiter.reject(refused);
      return;
    }
    const delay = Math.min(5000, 100 * 2 ** this.attempts) * (0.75 + Math.random() * 0.5);
    this.attempts += 1;
    this.setState('reconnecting');
    this.reconnectTimer = setTimeout(() => this.open(), delay);
  }

  // Registered synchronously as the subscribe answer arrives: its first event may follow in the same task.
  /** @param {Feed} feed */
  startFeed(feed) {
    /** @type {RpcParams<'events.subscribe'>} */
    const params = {};
    if (feed.types !== undefined && feed.types.length > 0) params.types = feed.types;
    if (feed.cursor !== undefined) params.after = feed.cursor;
    this.request('events.subscribe', params).then(
      ({ subscription, after }) => {
        if (feed.closed) {
          this.request('events.unsubscribe', { subscription }).catch(() => {});
          return;
        }
        feed.serverId = subscription;
        feed.cursor ??= after;
        this.feedsByServerId.set(subscription, feed);
      },
      // A lost connection resubscribes on reconnect.
      () => {},
    );
  }

  /**
   * @template {RpcMethodName} M
   * @param {M} method
   * @param {RpcParams<M>} params
   * @returns {Promise<RpcResult<M>>}
   */
  request(method, params) {
    const ws = this.ws;
    if (ws === undefined || ws.readyState !== WebSocket.OPEN) {
      return Promise.reject(new Error(`${method}: not connected to the gateway.`));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method} got no answer within ${this.requestTimeoutMs} ms.`));
      }, this.requestTimeoutMs);
      this.pending.set(id, { method, resolve, reject, timer });
      ws.send(JSON.stringify({ jsonrpc: '2.0', method, params, id }));
    });
  }

  /** @param {unknown} data */
  onMessage(data) {
    if (typeof data !== 'string') return;
    /** @type {unknown} */
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    for (const item of Array.isArray(message) ? message : [message]) this.onItem(item);
  }

  /** @param {any} item */
  onItem(item) {
    if (typeof item !== 'object' || item === null) return;
    if (typeof item.id === 'number' && ('result' in item || 'error' in item)) {
      const pending = this.pending.get(item.id);
      if (pending === undefined) return;
      this.pending.delete(item.id);
      clearTimeout(pending.timer);
      if (item.error !== undefined) pending.reject(new RpcError(item.error, pending.method));
      else pending.resolve(item.result);
      return;
    }
    const params = item.params;
    if (item.method === 'events.event' && params !== undefined) {
      const feed = this.feedsByServerId.get(params.subscription);
      if (feed === undefined || feed.closed) return;
      /** @type {VigilEvent} */
      const event = params.event;
      feed.cursor = Math.max(feed.cursor ?? 0, event.seq);
      feed.onEvent(event);
    } else if (item.method === 'events.dropped' && params !== undefined) {
      this.feedsByServerId.get(params.subscription)?.onDropped?.(params);
    }
  }
}

/**
 * Opens a client and adds the method namespaces the gateway's own `rpc.discover` lists, so the page calls exactly
 * the catalogue's methods under the same names and types as the Node client.
 * @param {BrowserClientOptions} options
 * @returns {Promise<BrowserVigilClient & TypedMethods>}
 */
export async function connect(options) {
  const client = new BrowserVigilClient(options);
  await client.ready();
  const discovered = /** @type {{ methods?: Array<{ name: string }> }} */ (await client.call('rpc.discover'));
  /** @type {Record<string, Record<string, (params?: unknown) => Promise<unknown>>>} */
  const namespaces = {};
  for (const { name } of discovered.methods ?? []) {
    if (STATEFUL.has(name)) continue;
    const [namespace, method] = name.split('.');
    if (namespace === undefined || method === undefined) continue;
    const call = /** @type {(method: string, params?: unknown) => Promise<unknown>} */ (client.call.bind(client));
    (namespaces[namespace] ??= {})[method] = (params) => call(name, params);
  }
  return /** @type {BrowserVigilClient & TypedMethods} */ (/** @type {unknown} */ (Object.assign(client, namespaces)));
}
