/**
 * What `vigil --help` and `vigil COMMAND [SUB] --help` print: each command's one-line summary, its usage (per
 * subcommand where it has them) and what it does. Text only, so the binary reads it without loading any command.
 */

/** One form of a command: its usage after `vigil COMMAND ` and what it does. */
export interface HelpForm {
  /** The subcommand's name (`list`); absent for a command without subcommands. */
  sub?: string;
  /** The arguments after `vigil COMMAND` (`list [--json]`). */
  usage: string;
  /** What it does, a line or two. */
  about: string;
}

/** One command's help. */
export interface CommandHelp {
  name: string;
  /** The line in `vigil --help`. */
  summary: string;
  forms: readonly HelpForm[];
  /** Said once after the forms (flags shared by them, limits). */
  notes?: string;
  /** A client of the running daemon (every command but `run`): takes --url, --token and --data-dir. */
  client: boolean;
}

/** Every command, in the order `vigil --help` lists them. */
export const COMMAND_HELP: readonly CommandHelp[] = [
  {
    name: 'run',
    summary: 'the daemon, in the foreground',
    client: false,
    forms: [
      {
        usage: '[--data-dir D] [--host H] [--port P] [--thinker offline|anthropic|openai] [--repair]',
        about:
          'runs the agent; logs JSON lines on stdout (human ones on a terminal); SIGINT/SIGTERM finish the beat, ' +
          'write a final checkpoint and exit 0. --repair repairs a damaged LevelDB data dir first.',
      },
    ],
    notes: 'Every other setting is a VIGIL_* environment variable (docs/configuration.md).',
  },
  {
    name: 'send',
    summary: 'send the agent a message; print its reply',
    client: true,
    forms: [
      {
        usage: 'TEXT [--no-wait] [--timeout S] [--from NAME]',
        about:
          'prints the reply (exit 0), or why it went unanswered on stderr (exit 1); --no-wait prints the turn id at ' +
          'once; --timeout stops waiting after S seconds. A TEXT starting with - goes after --.',
      },
    ],
  },
  {
    name: 'rpc',
    summary: 'one JSON-RPC call (`vigil rpc rpc.discover` lists the methods)',
    client: true,
    forms: [
      {
        usage: 'METHOD [PARAMS_JSON]',
        about:
          'prints the result as JSON; a JSON-RPC error goes to stderr as the server sent it, then a line saying ' +
          'what to do (exit 1).',
      },
    ],
  },
  {
    name: 'events',
    summary: 'the event feed, live, until interrupted',
    client: true,
    forms: [
      {
        usage: '[--types T1,T2] [--after SEQ] [--beats] [--json]',
        about:
          'on a terminal one short line per event, heartbeat.beat hidden unless --beats or --types names it; ' +
          'piped or with --json, one JSON object per line (every event). --types takes exact types or prefixes ' +
          'ending in * (agent.*); --after resumes after a seq.',
      },
    ],
  },
  {
    name: 'conversation',
    summary: 'the conversation log, and search in it',
    client: true,
    forms: [
      {
        usage: '[--limit N] [--before SEQ] [--json]',
        about: 'the log, newest last, one line per entry; page back with --before the oldest seq shown.',
      },
      {
        sub: 'search',
        usage: 'search QUERY [--limit N] [--before T] [--after T] [--json]',
        about: 'the messages best matching QUERY, best first, optionally said before/after ISO times.',
      },
    ],
  },
  {
    name: 'checkpoints',
    summary: 'list, create, show, restore, export and import checkpoints',
    client: true,
    forms: [
      { sub: 'list', usage: 'list [--limit N]', about: 'the stored checkpoints, newest first, as JSON.' },
      { sub: 'create', usage: 'create', about: 'writes a checkpoint now.' },
      { sub: 'show', usage: 'show ID', about: "one checkpoint's summary." },
      { sub: 'restore', usage: 'restore ID --yes', about: 'replaces the running state with that checkpoint.' },
      { sub: 'export', usage: 'export ID FILE', about: 'writes the checkpoint and its conversation to FILE (0600).' },
      { sub: 'import', usage: 'import FILE', about: 'stores an exported file as a new checkpoint (then restore it).' },
    ],
  },
  {
    name: 'tools',
    summary: 'MCP tools, calls waiting for approval, sign-ins to servers',
    client: true,
    forms: [
      {
        sub: 'list',
        usage: 'list [--json]',
        about: 'the tools the agent may use, servers waiting for a sign-in, and servers that cannot be reached.',
      },
      { sub: 'pending', usage: 'pending [--json]', about: "tool calls waiting for an operator's approval." },
      { sub: 'approve', usage: 'approve CALL_ID', about: 'runs a waiting call.' },
      { sub: 'deny', usage: 'deny CALL_ID [--reason R]', about: 'refuses a waiting call; the agent is told why.' },
      {
        sub: 'login',
        usage: 'login SERVER [--no-wait]',
        about:
          'prints the URL to open and waits until the sign-in completes (0) or fails (1); --no-wait only prints it.',
      },
      { sub: 'logout', usage: 'logout SERVER', about: "forgets the server's tokens." },
    ],
  },
  {
    name: 'thinks',
    summary: 'traces of recent thinks: model, tool calls, tokens, cost',
    client: true,
    forms: [
      { sub: 'list', usage: 'list [--limit N] [--before ID] [--json]', about: 'the recent thinks, newest first.' },
      { sub: 'show', usage: 'show ID [--json]', about: "one think's calls and prompt sections." },
    ],
  },
  {
    name: 'tasks',
    summary: 'sub-agent tasks: list and cancel',
    client: true,
    forms: [
      { sub: 'list', usage: 'list [--json]', about: 'id, status, spend and cap, tools, prompt.' },
      { sub: 'cancel', usage: 'cancel ID [--json]', about: 'drops a queued task or aborts a running one.' },
    ],
  },
  {
    name: 'memory',
    summary: 'search or forget long-term memories',
    client: true,
    forms: [
      {
        sub: 'search',
        usage: 'search QUERY [--limit N] [--json]',
        about: 'id, score, source, created, content; best first.',
      },
      { sub: 'forget', usage: 'forget ID', about: 'deletes one memory.' },
    ],
  },
  {
    name: 'mcp',
    summary: 'an MCP server on stdio relaying to the daemon (for MCP hosts)',
    client: true,
    forms: [{ usage: '', about: 'for Claude Desktop, Claude Code and other MCP hosts: they start it, not you.' }],
  },
  {
    name: 'schedules',
    summary: 'wake-ups that send the agent a text: cron, interval, one-shot',
    client: true,
    forms: [
      { sub: 'list', usage: 'list [--json]', about: 'the schedules and their next firing.' },
      {
        sub: 'add',
        usage:
          'add TEXT (--cron EXPR [--timezone TZ] | --every DURATION | --at ISO) [--name N] ' +
          '[--catch-up skip|once|all] [--max-catch-up N] [--json]',
        about: 'each firing is a turn (and a think), so --every is at least 1m: e.g. 90s, 30m, 2h, 1d.',
      },
      { sub: 'remove', usage: 'remove ID', about: 'deletes a schedule.' },
      { sub: 'pause', usage: 'pause ID', about: 'stops its firings until resumed.' },
      { sub: 'resume', usage: 'resume ID', about: 'fires it again.' },
    ],
  },
  {
    name: 'tokens',
    summary: 'gateway tokens that can only read, or talk, or operate',
    client: true,
    forms: [
      {
        sub: 'create',
        usage: 'create --scope read|talk|operate [--name N] [--expires DURATION] [--json]',
        about: 'prints the secret once.',
      },
      { sub: 'list', usage: 'list [--json]', about: 'names, scopes and expiry; never the secrets.' },
      {
        sub: 'revoke',
        usage: 'revoke NAME',
        about:
          'refuses the token from now on and closes what was opened with it; `revoke daemon` signs every browser out (the daemon token stays).',
      },
    ],
  },
  {
    name: 'dashboard',
    summary: 'a one-time link that signs a browser in to the dashboard',
    client: true,
    forms: [
      {
        usage: '[--json]',
        about:
          'prints a link good once, for two minutes, with the scope of the token it runs with; the token never enters the address.',
      },
    ],
  },
  {
    name: 'webhooks',
    summary: 'signed HTTP POSTs of events, at least once and in order',
    client: true,
    forms: [
      {
        sub: 'add',
        usage: 'add URL --types T1,T2 [--name N] [--json]',
        about: 'POSTs the events of those types (agent.reply,tool.*) journaled from now on; prints the secret once.',
      },
      {
        sub: 'list',
        usage: 'list [--json]',
        about: 'id, name, state, URL, types, cursor, backlog, and the last attempt with its status or reason.',
      },
      { sub: 'remove', usage: 'remove ID', about: 'nothing more goes to it.' },
      { sub: 'enable', usage: 'enable ID', about: 'resumes a disabled endpoint from its cursor.' },
      { sub: 'test', usage: 'test ID [--json]', about: 'POSTs a test event now; exit 1 unless it answered 2xx.' },
      {
        sub: 'deliveries',
        usage: 'deliveries ID [--limit N] [--json]',
        about: 'its recent attempts, newest first, with the full error.',
      },
      { sub: 'redeliver', usage: 'redeliver ID --after SEQ', about: 'sends the events after SEQ again, in order.' },
    ],
  },
  {
    name: 'channels',
    summary: 'chat channels (Telegram, Slack, email): state, pairings, senders',
    client: true,
    forms: [
      {
        sub: 'list',
        usage: 'list [--json]',
        about: 'each channel: type, state, account, replies pending, last in and out.',
      },
      {
        sub: 'pairings',
        usage: 'pairings [NAME] [--json]',
        about: 'strangers waiting with a live pairing code, oldest first.',
      },
      { sub: 'approve', usage: 'approve NAME CODE', about: 'lets the sender who was given CODE talk from then on.' },
      { sub: 'senders', usage: 'senders NAME [--json]', about: 'who may talk on that channel.' },
      {
        sub: 'revoke',
        usage: 'revoke NAME SENDER_ID',
        about: 'withdraws a pairing approval (the sender is a stranger again).',
      },
    ],
  },
];

/** How every client command finds its daemon, said once in `vigil --help` and after each command's help. */
export const CLIENT_OPTIONS =
  'client options: --data-dir D (default VIGIL_DATA_DIR or ./data: the daemon is found through D/daemon.json and its\n' +
  'token in D/token), --url URL, --token TOKEN (default VIGIL_TOKEN)';
