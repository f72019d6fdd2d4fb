/** The MCP client hub: every configured server's connection, the registry of their tools, and calls to them by `mcp__SERVER__TOOL` name. */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { describeError, VigilError } from '../../errors.js';
import { isStdioServer, type McpServerEntry } from '../../protocol/mcp-config.schema.js';
import type { CallbackOutcome } from '../../protocol/tools.schema.js';
import type { ServerAuth, SignInStart } from './oauth/server-auth.js';
import type { ConnectionListener, ServerConnection } from './server-connection.js';
import type { McpHubOptions, ServerDown, SignInNeeded, ToolCallOptions } from './mcp-hub-options.js';
import { ToolArgsChecker } from './tool-args.js';
import { callError, isUnauthorizedCall, unreachableError } from './tool-call-errors.js';
import { loadMcpClient, loadServerAuth } from './mcp-client-loader.js';
import { mergeRegistry, serverTools, unknownAllowedTools, type RegisteredTool } from './tool-registry.js';

export { loadMcpClient } from './mcp-client-loader.js';
export { MCP_REQUEST_TIMEOUT } from './tool-call-errors.js';
export type { McpHubOptions, ServerDown, SignInNeeded, ToolCallOptions } from './mcp-hub-options.js';

/** One server's part of the registry: its last listing and whether it is connected. */
interface ServerSlot {
  readonly entry: McpServerEntry;
  /** Made at `start()`, once the SDK is loaded. */
  connection: ServerConnection | undefined;
  /** The server's OAuth sign-in (Streamable HTTP servers, when the hub signs in), made with the connection. */
  auth: ServerAuth | undefined;
  tools: RegisteredTool[];
  listing: readonly Tool[];
  checker: ToolArgsChecker;
  /** Set when an attempt to connect failed, until one succeeds (or the server waits for a sign-in instead). */
  down: Omit<ServerDown, 'server'> | undefined;
}

/**
 * Connects every enabled server in the background at `start()` (nothing waits for them), keeps a sorted registry of
 * their tools, and emits `mcp.server_up`, `mcp.server_down` and `mcp.tools_changed`. A server that goes down keeps
 * its tools in the registry, marked unavailable, so the list the model sees keeps its order (and its cache).
 */
export class McpHub {
  private readonly slots = new Map<string, ServerSlot>();
  private registry: RegisteredTool[] = [];
  private byName = new Map<string, RegisteredTool>();
  private started: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: McpHubOptions) {
    for (const [server, entry] of Object.entries(options.servers)) {
      if (entry.disabled === true) continue;
      this.slots.set(server, {
        entry,
        connection: undefined,
        auth: undefined,
        tools: [],
        listing: [],
        checker: new ToolArgsChecker(),
        down: undefined,
      });
    }
  }

  /** The servers the hub runs (the enabled ones), by name. */
  servers(): string[] {
    return [...this.slots.keys()].sort();
  }

  /** Starts connecting every server; returns at once. */
  start(): void {
    if (this.started !== undefined || this.stopped || this.slots.size === 0) return;
    this.started = this.connectAll().catch((err: unknown) => {
      this.options.log.error(
        { err: describeError(err) },
        'the MCP client could not be loaded; no MCP server is started',
      );
    });
  }

  /** Stops every server and waits until each stdio server's process group is gone. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.started;
    for (const slot of this.slots.values()) slot.auth?.stop();
    await Promise.all([...this.slots.values()].map(({ connection }) => connection?.stop()));
  }

  /** The servers waiting for the operator to sign in, by name. */
  signInsNeeded(): SignInNeeded[] {
    const needed: SignInNeeded[] = [];
    for (const server of this.servers()) {
      const state = this.slots.get(server)?.auth?.state;
      if (state?.phase === 'needs_auth')
        needed.push({ server, authorizationUrl: state.authorizationUrl, expiresAt: state.expiresAt });
    }
    return needed;
  }

  /** The servers not connected since an attempt failed, by name (a sign-in needed is not down: `signInsNeeded`). */
  serversDown(): ServerDown[] {
    return this.servers().flatMap((server) => {
      const down = this.slots.get(server)?.down;
      return down === undefined || this.needsSignIn(server) ? [] : [{ server, ...down }];
    });
  }

  /** True when `server` waits for the operator to sign in. */
  needsSignIn(server: string): boolean {
    return this.slots.get(server)?.auth?.phase === 'needs_auth';
  }

  /**
   * Starts a fresh sign-in to `server` (`tools.login`): MCP_SERVER_NOT_FOUND for a name not configured (or disabled),
   * RPC_INVALID_PARAMS for a stdio server or one that never asked for a sign-in and has no `oauth` settings,
   * TOOL_UNAVAILABLE for one that cannot be reached now (its 401, if it wants a sign-in, comes once it answers).
   */
  async login(server: string): Promise<SignInStart> {
    return this.authOf(server, 'login').login();
  }

  /** Forgets the tokens of `server` (`tools.logout`); it reconnects and asks for a sign-in when the server wants one. */
  async logout(server: string): Promise<void> {
    await this.authOf(server, 'logout').logout();
  }

  /** The callback of a sign-in: `state` names it (single use, 10 minutes); `code` finishes it, `error` reports it. */
  async completeSignIn(answer: { state: string; code?: string; error?: string }): Promise<CallbackOutcome> {
    // Only which server it is for: the sign-in itself is taken out (and checked) in the server's own queue.
    const found = this.options.oauth?.store.findSignIn(answer.state);
    if (found === undefined || found.signIn.expiresAt <= this.options.clock.now()) return { kind: 'unknown_state' };
    const auth = this.slots.get(found.server)?.auth;
    if (auth === undefined) return { kind: 'unknown_state' };
    const outcome = await auth.finish(answer.state, {
      ...(answer.code === undefined ? {} : { code: answer.code }),
      ...(answer.error === undefined ? {} : { error: answer.error }),
    });
    if (outcome.ok) return { kind: 'signed_in', server: found.server };
    return 'unknown' in outcome
      ? { kind: 'unknown_state' }
      : { kind: 'failed', server: found.server, error: outcome.error };
  }

  private authOf(server: string, method: 'login' | 'logout'): ServerAuth {
    const slot = this.slots.get(server);
    if (slot === undefined)
      throw new VigilError('MCP_SERVER_NOT_FOUND', `No MCP server is called ${JSON.stringify(server)}.`, {
        data: { server },
      });
    const invalid = (why: string) =>
      new VigilError('RPC_INVALID_PARAMS', `Invalid params for tools.${method}: server ${server} ${why}.`, {
        data: [{ code: 'custom', path: ['server'], message: `${server} ${why}` }],
      });
    if (isStdioServer(slot.entry)) throw invalid('is a stdio server (only Streamable HTTP servers sign in)');
    // Whether it uses OAuth or not, a server that does not answer cannot be signed in to: say so, not "no OAuth".
    if (method === 'login' && slot.down !== undefined && !this.needsSignIn(server))
      throw unreachableError(server, slot.down);
    const auth = slot.auth;
    if (auth === undefined)
      throw new VigilError('TOOL_UNAVAILABLE', `MCP server ${server} is not started yet.`, { data: { server } });
    if (!auth.usesOAuth())
      throw invalid('does not use OAuth (it has no "oauth" settings and never asked for a sign-in)');
    return auth;
  }

  /** Every known tool, sorted by name; a tool of a server that is down is there with `available: false`. */
  list(): readonly RegisteredTool[] {
    return this.registry;
  }

  /** The tool called `name`, if any. */
  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }

  /** The connection of `server` once started (tests and diagnostics). */
  connection(server: string): ServerConnection | undefined {
    return this.slots.get(server)?.connection;
  }

  private async connectAll(): Promise<void> {
    const { ServerConnection } = await loadMcpClient();
    if (this.stopped) return;
    const { options } = this;
    const listener: ConnectionListener = {
      up: (server, tools, attempt) => this.onUp(server, tools, attempt),
      down: (server, reason, wasUp, retryInMs) => this.onDown(server, reason, wasUp, retryInMs),
      toolsChanged: (server, tools) => this.onToolsChanged(server, tools),
      needsAuth: (server) => this.onNeedsAuth(server),
    };
    const oauth = options.oauth;
    const { ServerAuth } = oauth === undefined ? { ServerAuth: undefined } : await loadServerAuth();
    if (this.stopped) return;
    for (const [server, slot] of this.slots) {
      if (ServerAuth !== undefined && oauth !== undefined && !isStdioServer(slot.entry)) {
        slot.auth = new ServerAuth({
          server,
          entry: slot.entry,
          store: oauth.store,
          callbackUrl: oauth.callbackUrl,
          bus: options.bus,
          clock: options.clock,
          log: options.log,
          ...(oauth.fetch === undefined ? {} : { fetch: oauth.fetch }),
        });
      }
      slot.connection = new ServerConnection({
        server,
        entry: slot.entry,
        clock: options.clock,
        log: options.log,
        listener,
        clientVersion: options.clientVersion,
        ...(options.timing === undefined ? {} : { timing: options.timing }),
        ...(options.createTransport === undefined ? {} : { createTransport: options.createTransport }),
        ...(slot.auth === undefined ? {} : { auth: slot.auth }),
      });
      slot.auth?.attach(slot.connection);
      slot.connection.start();
    }
  }

  /**
   * Calls tool `name` with `args` after checking them against its input schema. The result is the server's, a tool
   * error (`isError: true`) included; failures to call at all are VigilErrors: TOOL_NOT_FOUND, TOOL_UNAVAILABLE,
   * TOOL_INVALID_ARGS, TOOL_TIMEOUT, TOOL_ABORTED, TOOL_CALL_FAILED.
   */
  async callTool(name: string, args: unknown, options: ToolCallOptions = {}): Promise<CallToolResult> {
    const tool = this.byName.get(name);
    const slot = tool === undefined ? undefined : this.slots.get(tool.server);
    if (tool === undefined || slot === undefined) {
      throw new VigilError('TOOL_NOT_FOUND', `No tool is called ${JSON.stringify(name)}.`, { data: { name } });
    }
    const connection = slot.connection;
    if (connection?.state === 'needs_auth') {
      throw new VigilError(
        'TOOL_NEEDS_AUTH',
        `Tool ${name} was not called: its server ${tool.server} needs the operator to sign in (vigil tools login ${tool.server}).`,
        { data: { name, server: tool.server } },
      );
    }
    if (!tool.available || connection === undefined || connection.state !== 'up') {
      throw new VigilError(
        'TOOL_UNAVAILABLE',
        `Tool ${name} is unavailable: its server ${tool.server} is not connected (it is being retried).`,
        {
          data: { name, server: tool.server },
        },
      );
    }
    // Awaited only while the tool's validator is being compiled: otherwise the request is sent in this tick.
    const checking = slot.checker.check(tool.name, tool.inputSchema, args);
    const check = checking instanceof Promise ? await checking : checking;
    if (!check.valid) {
      throw new VigilError(
        'TOOL_INVALID_ARGS',
        `The arguments for ${name} do not match its input schema: ${check.problem}.`,
        {
          data: { name, problem: check.problem },
        },
      );
    }
    const timeoutMs = options.timeoutMs ?? tool.timeoutMs;
    const call = (on: ServerConnection) =>
      on.callTool(tool.tool, args as Record<string, unknown>, {
        timeoutMs,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    try {
      return await call(connection);
    } catch (err) {
      // A 401 to a call that was sent: its outcome is unknown, so only an idempotent tool is sent again, once, after
      // the access token was renewed (the refresh the 401 started).
      if (!isUnauthorizedCall(err) || !tool.idempotent || slot.auth === undefined)
        throw callError(name, timeoutMs, options.signal, err);
      await slot.auth.settled();
      const renewed = slot.connection;
      if (renewed?.state !== 'up') throw callError(name, timeoutMs, options.signal, err);
      try {
        return await call(renewed);
      } catch (again) {
        throw callError(name, timeoutMs, options.signal, again);
      }
    }
  }

  /** Why `args` do not fit tool `name`'s input schema, or undefined when they do (or no such tool is known): asked before an operator is. */
  async argsProblem(name: string, args: unknown): Promise<string | undefined> {
    const tool = this.byName.get(name);
    const slot = tool === undefined ? undefined : this.slots.get(tool.server);
    if (tool === undefined || slot === undefined) return undefined;
    const check = await slot.checker.check(tool.name, tool.inputSchema, args);
    return check.valid ? undefined : check.problem;
  }

  private onUp(server: string, listing: Tool[], attempt: number): void {
    const slot = this.slots.get(server)!;
    slot.down = undefined;
    this.setListing(server, slot, listing, true);
    this.options.bus.emit('mcp.server_up', { server, tools: slot.tools.length, attempt });
  }

  private onDown(server: string, reason: string, wasUp: boolean, retryInMs: number): void {
    const slot = this.slots.get(server)!;
    slot.down = { error: reason, nextRetryAt: this.options.clock.now() + retryInMs };
    slot.tools = slot.tools.map((tool) => ({ ...tool, available: false }));
    this.rebuild();
    this.options.bus.emit('mcp.server_down', { server, reason, wasUp, retryInMs });
  }

  private onNeedsAuth(server: string): void {
    const slot = this.slots.get(server)!;
    slot.down = undefined;
    slot.tools = slot.tools.map((tool) => ({ ...tool, available: false }));
    this.rebuild();
  }

  private onToolsChanged(server: string, listing: Tool[]): void {
    const slot = this.slots.get(server)!;
    this.setListing(server, slot, listing, true);
    this.options.bus.emit('mcp.tools_changed', { server, tools: slot.tools.length });
  }

  private setListing(server: string, slot: ServerSlot, listing: readonly Tool[], available: boolean): void {
    const { tools, skipped } = serverTools(server, slot.entry, listing, available);
    const { log } = this.options;
    for (const skip of skipped) log.warn(skip, 'an MCP tool is left out');
    const unknown = unknownAllowedTools(slot.entry, listing);
    if (unknown.length > 0) log.warn({ server, unknown }, 'allowedTools names tools the MCP server does not offer');
    slot.listing = listing;
    slot.tools = tools;
    // A new listing may change a tool's schema under the same name: validators start afresh.
    slot.checker = new ToolArgsChecker();
    this.rebuild();
  }

  private rebuild(): void {
    this.registry = mergeRegistry([...this.slots.values()].map((slot) => slot.tools));
    this.byName = new Map(this.registry.map((tool) => [tool.name, tool]));
  }
}
