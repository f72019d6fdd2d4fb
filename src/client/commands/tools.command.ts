/** `vigil tools list [--json] | pending [--json] | approve ID | deny ID [--reason R] | login SERVER [--no-wait] | logout SERVER`: the MCP tools, the calls waiting for an operator, and sign-ins to remote servers. */
import type { PendingToolCall } from '../../protocol/tool-approvals.schema.js';
import {
  isServerDownView,
  isSignInView,
  type ServerDownView,
  type SignInView,
  type ToolsListEntry,
  type ToolView,
} from '../../protocol/tools.schema.js';
import { RpcError } from '../rpc-error.js';
import type { VigilClient } from '../vigil-client.js';
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs } from './client-args.js';
import { printJson, runClientCommand } from './run-client-command.js';

/** The usage lines. */
export const TOOLS_USAGE = `usage: vigil tools list [--json]
       vigil tools pending [--json]
       vigil tools approve CALL_ID
       vigil tools deny CALL_ID [--reason R]
       vigil tools login SERVER [--no-wait]
       vigil tools logout SERVER
  each takes [--url URL] [--token TOKEN] [--data-dir D]
  login prints the URL to open in a browser and waits until the sign-in completes (exit 0) or fails (exit 1);
  --no-wait prints the URL and exits 0; a server that cannot be reached now: why, and exit 1`;

/** How long `tools login` waits: a sign-in's link works for 10 minutes. */
const SIGN_IN_WAIT_MS = 10 * 60_000;

const ARITY: Record<string, number> = { list: 0, pending: 0, approve: 1, deny: 1, login: 1, logout: 1 };

/** Runs `vigil tools …`. */
export function toolsCommand(argv: string[], io: CliIo): Promise<number> {
  return runClientCommand(
    io,
    TOOLS_USAGE,
    () => {
      const args = parseClientArgs(argv, {
        json: { type: 'boolean' },
        reason: { type: 'string' },
        'no-wait': { type: 'boolean' },
      });
      const [sub, ...rest] = args.positionals;
      if (sub === undefined || ARITY[sub] === undefined) {
        throw new UsageError(sub === undefined ? 'tools needs a subcommand.' : `unknown tools subcommand "${sub}".`);
      }
      if (rest.length !== ARITY[sub]) {
        throw new UsageError(
          rest.length > ARITY[sub]
            ? `unexpected arguments: ${rest.slice(ARITY[sub]).join(' ')}`
            : sub === 'login' || sub === 'logout'
              ? `tools ${sub} needs a server name (see vigil tools list).`
              : `tools ${sub} needs a call id (see vigil tools pending).`,
        );
      }
      if (args.flags['reason'] !== undefined && sub !== 'deny')
        throw new UsageError('--reason goes with tools deny only.');
      if (args.flags['no-wait'] !== undefined && sub !== 'login')
        throw new UsageError('--no-wait goes with tools login only.');
      return args;
    },
    async (client, args) => {
      const [sub, callId] = args.positionals as [string, string];
      if (sub === 'login')
        return login(io, client, callId, args.flags['no-wait'] === true).catch((err: unknown) => unreachable(io, err));
      if (sub === 'logout') {
        await client.tools.logout({ server: callId });
        io.stderr(`vigil: signed out of ${callId}: its tokens are forgotten.\n`);
        return 0;
      }
      const json = args.flags['json'] === true;
      switch (sub) {
        case 'list': {
          const tools = await client.tools.list();
          if (json) printJson(io, tools);
          else for (const entry of tools) io.stdout(`${formatEntry(entry)}\n`);
          if (tools.length === 0) io.stderr('vigil: no tools (set VIGIL_MCP_CONFIG to give the agent MCP servers).\n');
          return 0;
        }
        case 'pending': {
          const pending = await client.tools.pending();
          if (json) printJson(io, pending);
          else for (const call of pending) io.stdout(`${formatPending(call)}\n`);
          if (pending.length === 0 && !json) io.stderr('vigil: no tool call waits for approval.\n');
          return 0;
        }
        case 'approve':
          printJson(io, await client.tools.approve({ callId }));
          return 0;
        default: {
          const reason = args.flags['reason'];
          printJson(io, await client.tools.deny({ callId, ...(typeof reason === 'string' ? { reason } : {}) }));
          return 0;
        }
      }
    },
  );
}

/**
 * `tools login`: starts a sign-in, prints its URL (stdout: the one line a script reads) and, unless `noWait`, waits
 * on the event feed for that server's `mcp.auth_completed` (0) or `mcp.auth_failed` (1). Subscribed before the
 * sign-in starts, so a fast browser cannot finish it unseen.
 */
async function login(io: CliIo, client: VigilClient, server: string, noWait: boolean): Promise<number> {
  if (noWait) {
    const started = await client.tools.login({ server });
    io.stdout(`${started.authorizationUrl}\n`);
    io.stderr(
      `vigil: open that URL in a browser to sign in to ${server} (it works once, until ${started.expiresAt}).\n`,
    );
    return 0;
  }
  let settle!: (code: number) => void;
  const outcome = new Promise<number>((resolve) => (settle = resolve));
  const subscription = client.subscribe(['mcp.auth_completed', 'mcp.auth_failed']).subscribe({
    next: (event) => {
      if (event.type === 'mcp.auth_completed' && event.server === server) {
        io.stderr(`vigil: signed in to ${server}.\n`);
        settle(0);
      } else if (event.type === 'mcp.auth_failed' && event.server === server) {
        io.stderr(`vigil: the sign-in to ${server} failed: ${oneLine(event.error)}\n`);
        settle(1);
      }
    },
    error: (err: unknown) => {
      io.stderr(`vigil: the event feed ended before the sign-in did: ${(err as Error).message}\n`);
      settle(1);
    },
  });
  try {
    const started = await client.tools.login({ server });
    io.stdout(`${started.authorizationUrl}\n`);
    io.stderr(
      `vigil: open that URL in a browser to sign in to ${server}; waiting until ${started.expiresAt} (Ctrl-C stops waiting).\n`,
    );
    // The link's life from now, not from its expiresAt: the daemon's clock need not be this machine's.
    const expired = new Promise<number>((resolve) => {
      setTimeout(() => {
        io.stderr(`vigil: the sign-in link expired; run vigil tools login ${server} again.\n`);
        resolve(1);
      }, SIGN_IN_WAIT_MS).unref();
    });
    const interrupted = io.interrupted().then(() => 1);
    return await Promise.race([outcome, expired, interrupted]);
  } finally {
    subscription.unsubscribe();
  }
}

/** `tools login` to a server that is down: the daemon's own sentence (why, and when it is tried again), exit 1. */
function unreachable(io: CliIo, err: unknown): number {
  const down = err instanceof RpcError && err.vigilCode === 'TOOL_UNAVAILABLE';
  if (!down || (err.data as { state?: unknown } | undefined)?.state !== 'down') throw err;
  io.stderr(`vigil: ${oneLine(err.message)}\n`);
  return 1;
}

// A server's or a model's text is not ours: no newline or escape sequence of it reaches the operator's terminal.
const oneLine = (text: string) => text.replace(/\p{Cc}/gu, ' ');

/** One entry of `tools.list` as one line: a tool, a server waiting for a sign-in, or a server that is down. */
export function formatEntry(entry: ToolsListEntry): string {
  if (isSignInView(entry)) return formatSignIn(entry);
  return isServerDownView(entry) ? formatServerDown(entry) : formatTool(entry);
}

/** A server that is down as one line: `SERVER  down  -  cannot be reached: REASON; next attempt at TIME`. */
export function formatServerDown(entry: ServerDownView): string {
  return [
    entry.server,
    'down',
    '-',
    `cannot be reached: ${oneLine(entry.error)}; next attempt at ${entry.nextRetryAt}`,
  ].join('\t');
}

/**
 * A server waiting for a sign-in as one line: `SERVER  needs_auth  -  sign in: URL (or: vigil tools login SERVER)`;
 * without the URL (shown to an operate token only) `sign in: vigil tools login SERVER (an operate token)`.
 */
export function formatSignIn(entry: SignInView): string {
  const how =
    entry.authorizationUrl === undefined
      ? `sign in: vigil tools login ${entry.server} (an operate token)`
      : `sign in: ${entry.authorizationUrl} (or: vigil tools login ${entry.server})`;
  return [entry.server, 'needs_auth', '-', how].join('\t');
}

/** One tool as one line: `NAME  up|down|needs_auth  [approval]  DESCRIPTION` (the description's first line, escaped of controls). */
export function formatTool(tool: ToolView): string {
  const state = tool.state;
  const flags = [tool.requireApproval ? 'approval' : '', tool.idempotent ? 'idempotent' : '']
    .filter((f) => f !== '')
    .join(',');
  const description = oneLine(tool.description.split('\n')[0] ?? '');
  return [tool.name, state, flags === '' ? '-' : flags, description].join('\t');
}

/** One waiting call as one line: `CALL_ID  NAME  REQUESTED_AT  TURN_ID|-  ARGS_JSON`. */
export function formatPending(call: PendingToolCall): string {
  return [
    call.callId,
    call.name,
    call.requestedAt,
    call.turnId ?? '-',
    oneLine(JSON.stringify(call.args ?? null)),
  ].join('\t');
}
