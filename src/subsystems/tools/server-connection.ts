/** One configured MCP server's life: start or connect it, list its tools, notice when it goes away, and try again with back-off. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { describeError } from '../../errors.js';
import { isStdioServer, type McpServerEntry } from '../../protocol/mcp-config.schema.js';
import type { Clock } from '../../shared/clock.js';
import type { VigilLogger } from '../../shared/logger.js';
import { runDetached } from '../../shared/run-detached.js';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.js';
import { createServerTransport, type ServerTransport, type TransportAuth } from './mcp-transport.js';
import { StderrTail } from './stderr-tail.js';
import { downReason, errorClass } from './down-reason.js';

/** Where a connection stands; `needs_auth`: held until the operator signs in (no retries meanwhile). */
export type ConnectionState = 'idle' | 'connecting' | 'up' | 'waiting' | 'needs_auth' | 'stopped';

/** A Streamable HTTP server's sign-in, as its connection uses it (`oauth/server-auth.ts`). */
export interface ConnectionAuth extends TransportAuth {
  /** Where the sign-in stands: a connection that ends in `needs_auth` is held, not retried. */
  readonly phase: string;
  /** Resolves once no refresh or sign-in runs, so a connection never races a refresh for the refresh token. */
  settled(): Promise<void>;
}

/** What a connection reports to its owner. */
export interface ConnectionListener {
  /** Connected and listed; `attempt` counts every connection attempt since start. */
  up(server: string, tools: Tool[], attempt: number): void;
  /** Could not connect, or went away; the next attempt is in `retryInMs`. */
  down(server: string, reason: string, wasUp: boolean, retryInMs: number): void;
  /** The server said its tools changed, and they were listed again. */
  toolsChanged(server: string, tools: Tool[]): void;
  /** The connection is held until the operator signs in; `wasUp`: it had been connected. */
  needsAuth(server: string, wasUp: boolean): void;
}

/** Timing of connections; every timer runs on the injected clock. */
export interface ConnectionTiming {
  backoff: BackoffPolicy;
  /** A server that stayed up this long starts its back-off from the beginning when it next fails. */
  stableAfterMs: number;
  /** How often a Streamable HTTP server is pinged, since no process end tells when it is gone. */
  pingIntervalMs: number;
  /** The longest a connection attempt (initialize and the tool listing) or a ping may take. */
  requestTimeoutMs: number;
}

/** The defaults: back-off 1 s doubling to 1 min, reset after 1 min up; ping every 30 s; 30 s per request. */
export const DEFAULT_TIMING: ConnectionTiming = {
  backoff: DEFAULT_BACKOFF,
  stableAfterMs: 60_000,
  pingIntervalMs: 30_000,
  requestTimeoutMs: 30_000,
};

/** What a connection needs. */
export interface ServerConnectionOptions {
  server: string;
  entry: McpServerEntry;
  clock: Clock;
  log: VigilLogger;
  listener: ConnectionListener;
  /** The version Vigil gives in the MCP handshake. */
  clientVersion: string;
  timing?: Partial<ConnectionTiming>;
  /** Builds the transport; tests may substitute one. */
  createTransport?: (entry: McpServerEntry, auth?: TransportAuth) => ServerTransport;
  /** The server's OAuth sign-in (Streamable HTTP servers only). */
  auth?: ConnectionAuth;
}

// A server that pages its tool list forever (a cursor that never ends) must not hold a connection attempt forever.
const MAX_LIST_PAGES = 100;

/** One server's connection, reconnected with capped exponential back-off until stopped. */
export class ServerConnection {
  private stateValue: ConnectionState = 'idle';
  private client: Client | undefined;
  private tail: StderrTail | undefined;
  private launcherPid: (() => number | null) | undefined;
  // Bumped whenever a client is given up: callbacks of an older client see a different number and do nothing.
  private generation = 0;
  private attempts = 0;
  private failures = 0;
  private upAt = 0;
  private retryTimer: unknown;
  private pingTimer: unknown;
  private refreshing = false;
  private refreshAgain = false;
  private readonly timing: ConnectionTiming;

  constructor(private readonly options: ServerConnectionOptions) {
    this.timing = { ...DEFAULT_TIMING, ...options.timing };
  }

  /** Where the connection stands now. */
  get state(): ConnectionState {
    return this.stateValue;
  }

  /** The stdio launcher's pid while a process runs (for tests and diagnostics). */
  pid(): number | null {
    return this.launcherPid?.() ?? null;
  }

  /** Starts connecting in the background; the outcome comes through the listener. */
  start(): void {
    if (this.stateValue !== 'idle') return;
    runDetached(this.connect(), this.options.log, `connecting to MCP server ${this.options.server}`);
  }

  /** Calls `tool` on the server; throws when it is not connected. */
  callTool(
    tool: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal; timeoutMs: number },
  ): Promise<CallToolResult> {
    const client = this.client;
    if (this.stateValue !== 'up' || client === undefined)
      throw new Error(`the server is ${this.stateValue === 'waiting' ? 'down' : this.stateValue.replace('_', ' ')}`);
    return client.callTool({ name: tool, arguments: args }, undefined, {
      timeout: options.timeoutMs,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    }) as Promise<CallToolResult>;
  }

  /** Stops retrying and closes the server (a stdio server's process, and its group, are gone when this resolves). */
  async stop(): Promise<void> {
    if (this.stateValue === 'stopped') return;
    this.stateValue = 'stopped';
    this.generation += 1;
    this.clearTimers();
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) await this.close(client);
  }

  /** Holds the connection until the operator signs in: closed, not retried, its tools unavailable. */
  hold(): void {
    if (this.stateValue === 'stopped' || this.stateValue === 'needs_auth') return;
    const wasUp = this.stateValue === 'up';
    const client = this.client;
    this.client = undefined;
    this.generation += 1;
    this.clearTimers();
    this.stateValue = 'needs_auth';
    this.options.listener.needsAuth(this.options.server, wasUp);
    if (client !== undefined)
      runDetached(this.close(client), this.options.log, `closing MCP server ${this.options.server}`);
  }

  /** Connects again now (after a sign-in or a sign-out), with the back-off started afresh. */
  reconnect(): void {
    if (this.stateValue === 'stopped' || this.stateValue === 'idle') return;
    const client = this.client;
    this.client = undefined;
    this.generation += 1;
    this.clearTimers();
    this.failures = 0;
    if (client !== undefined)
      runDetached(this.close(client), this.options.log, `closing MCP server ${this.options.server}`);
    runDetached(this.connect(), this.options.log, `reconnecting to MCP server ${this.options.server}`);
  }

  private async connect(): Promise<void> {
    const generation = ++this.generation;
    this.stateValue = 'connecting';
    this.attempts += 1;
    const { server, entry, log, auth } = this.options;
    this.tail = undefined;
    try {
      // A refresh under way finishes first: a connection that met a 401 meanwhile would refresh with the same token.
      if (auth !== undefined) await auth.settled();
      if (generation !== this.generation) return;
      const made = (this.options.createTransport ?? createServerTransport)(entry, auth);
      this.tail =
        made.stderr === null
          ? undefined
          : new StderrTail(made.stderr, (line) => log.debug({ server, line }, 'mcp server stderr'));
      this.launcherPid = made.pid;
      const client = new Client(
        { name: 'vigil', version: this.options.clientVersion },
        // The SDK only hands over the notification; the listing is ours, so it pages and is never run twice at once.
        {
          capabilities: {},
          listChanged: {
            tools: {
              autoRefresh: false,
              debounceMs: 0,
              onChanged: () =>
                runDetached(this.refresh(generation), log, `refreshing the tools of MCP server ${server}`),
            },
          },
        },
      );
      client.onclose = () => this.lost(generation, 'the connection closed');
      client.onerror = (err) => log.debug({ server, err: describeError(err) }, 'mcp transport error');
      this.client = client;
      await client.connect(made.transport, { timeout: this.timing.requestTimeoutMs });
      const tools = await this.listTools(client);
      if (generation !== this.generation) return;
      this.stateValue = 'up';
      this.upAt = this.options.clock.now();
      if (!isStdioServer(entry)) this.schedulePing(generation);
      this.options.listener.up(server, tools, this.attempts);
    } catch (err) {
      if (generation !== this.generation) return;
      // The 401 ended in a sign-in the operator has to make (the sign-in held the connection already, or does now).
      if (auth?.phase === 'needs_auth') {
        this.hold();
        return;
      }
      // The message may be the server's own words (an error it answered): the log at debug has it, the event only its class.
      log.debug({ server, err: describeError(err) }, 'connecting to an MCP server failed');
      this.fail(`it could not be connected (${errorClass(err)})`, false);
    }
  }

  /** The connection of `generation` closed or stopped answering: down, unless it was already given up. */
  private lost(generation: number, reason: string): void {
    // While connecting, the failed request reports the same end (and more precisely); only a live connection is lost here.
    if (generation !== this.generation || this.stateValue !== 'up') return;
    this.fail(reason, true);
  }

  private fail(reason: string, wasUp: boolean): void {
    const client = this.client;
    this.client = undefined;
    this.generation += 1;
    this.clearTimers();
    const now = this.options.clock.now();
    if (wasUp && now - this.upAt >= this.timing.stableAfterMs) this.failures = 0;
    this.failures += 1;
    const retryInMs = backoffDelay(this.failures, this.timing.backoff);
    this.stateValue = 'waiting';
    this.retryTimer = this.options.clock.setTimeout(() => {
      this.retryTimer = undefined;
      runDetached(this.connect(), this.options.log, `reconnecting to MCP server ${this.options.server}`);
    }, retryInMs);
    this.options.listener.down(this.options.server, this.downReason(reason), wasUp, retryInMs);
    // A process that is still there (a timed-out handshake) is ended in the background; its close is ignored.
    if (client !== undefined)
      runDetached(this.close(client), this.options.log, `closing MCP server ${this.options.server}`);
  }

  /**
   * The reason with how the process ended (down-reason.ts). The server's last words on stderr, which often say why,
   * go to the log at debug level only: the event reaches read tokens, and a chatty server may print a secret.
   */
  private downReason(reason: string): string {
    const lines = this.tail?.recent() ?? [];
    if (lines.length > 0)
      this.options.log.debug({ server: this.options.server, stderr: lines }, 'mcp server down: its last stderr lines');
    return downReason(reason, lines);
  }

  private async listTools(client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: this.timing.requestTimeoutMs,
      });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) return tools;
    }
    throw new Error(`the tool list did not end after ${MAX_LIST_PAGES} pages`);
  }

  /** Lists the tools again after `notifications/tools/list_changed`; a change during a listing lists once more. */
  private async refresh(generation: number): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    try {
      do {
        this.refreshAgain = false;
        const client = this.client;
        if (generation !== this.generation || this.stateValue !== 'up' || client === undefined) return;
        const tools = await this.listTools(client);
        if (generation !== this.generation) return;
        this.options.listener.toolsChanged(this.options.server, tools);
      } while (this.refreshAgain);
    } catch (err) {
      // A connection that broke is reported by its close; a listing that failed on a live one keeps the old tools.
      this.options.log.warn(
        { server: this.options.server, err: describeError(err) },
        'listing the changed tools of an MCP server failed',
      );
    } finally {
      this.refreshing = false;
    }
  }

  private schedulePing(generation: number): void {
    this.pingTimer = this.options.clock.setTimeout(() => {
      this.pingTimer = undefined;
      const client = this.client;
      if (generation !== this.generation || client === undefined) return;
      client.ping({ timeout: this.timing.requestTimeoutMs }).then(
        () => {
          if (generation === this.generation) this.schedulePing(generation);
        },
        (err: unknown) => {
          this.options.log.debug({ server: this.options.server, err: describeError(err) }, 'an MCP server ping failed');
          this.lost(generation, `it did not answer a ping (${errorClass(err)})`);
        },
      );
    }, this.timing.pingIntervalMs);
  }

  private clearTimers(): void {
    if (this.retryTimer !== undefined) this.options.clock.clearTimeout(this.retryTimer);
    if (this.pingTimer !== undefined) this.options.clock.clearTimeout(this.pingTimer);
    this.retryTimer = undefined;
    this.pingTimer = undefined;
  }

  /** Closes a client: a stdio server's stdin ends (the launcher then ends its group); an HTTP session is ended politely. */
  private async close(client: Client): Promise<void> {
    const transport = client.transport;
    if (
      transport !== undefined &&
      'terminateSession' in transport &&
      typeof transport.terminateSession === 'function'
    ) {
      // Bounded: a server that hangs must not hold up the daemon's stop.
      await Promise.race([
        (transport.terminateSession as () => Promise<void>).call(transport).catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, 1000).unref()),
      ]);
    }
    // Best effort, like the session's end above: a client that fails to close is dropped all the same.
    await client.close().catch(() => undefined);
  }
}
