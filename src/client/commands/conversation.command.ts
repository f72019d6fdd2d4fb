/**
 * `vigil conversation [--limit N] [--before SEQ] [--json]`: the conversation log, newest last, one line per entry;
 * `vigil conversation search QUERY …` searches it (`conversation-search.command.ts`).
 */
import { parseArgs } from 'node:util';
import type { ConversationEntry } from '../../protocol/conversation.schema.js';
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs } from './client-args.js';
import { CONVERSATION_SEARCH_FLAGS as SEARCH_FLAGS, conversationSearchCommand } from './conversation-search.command.js';
import { printJson, runClientCommand } from './run-client-command.js';

/** The usage line. */
export const CONVERSATION_USAGE =
  'usage: vigil conversation [--limit N] [--before SEQ] [--json] | conversation search QUERY [--limit N] [--before T] [--after T] [--json]  [--url URL] [--token TOKEN] [--data-dir D]';

// The server's bound on `limit` (ConversationListParamsSchema), checked here so a wrong value is a usage error (2).
const MAX_LIMIT = 1000;
const DEFAULT_LIMIT = 50;

/** Runs `vigil conversation`. */
export function conversationCommand(argv: string[], io: CliIo): Promise<number> {
  const search = searchAt(argv);
  if (search >= 0) return conversationSearchCommand([...argv.slice(0, search), ...argv.slice(search + 1)], io);
  return runClientCommand(
    io,
    CONVERSATION_USAGE,
    () => {
      const args = parseClientArgs(argv, {
        limit: { type: 'string' },
        before: { type: 'string' },
        json: { type: 'boolean' },
      });
      if (args.positionals.length > 0) throw new UsageError(`unexpected arguments: ${args.positionals.join(' ')}`);
      const limit = args.flags['limit'];
      if (limit !== undefined && (!/^[1-9]\d*$/.test(String(limit)) || Number(limit) > MAX_LIMIT)) {
        throw new UsageError(`--limit must be an integer from 1 to ${MAX_LIMIT}, not ${JSON.stringify(limit)}.`);
      }
      const before = args.flags['before'];
      if (before !== undefined && (!/^[1-9]\d*$/.test(String(before)) || !Number.isSafeInteger(Number(before)))) {
        throw new UsageError(`--before must be an entry's seq (a positive integer), not ${JSON.stringify(before)}.`);
      }
      return args;
    },
    async (client, args) => {
      const limit = args.flags['limit'] === undefined ? DEFAULT_LIMIT : Number(args.flags['limit']);
      const before = args.flags['before'] === undefined ? {} : { before: Number(args.flags['before']) };
      const entries = await client.conversation.list({ limit, ...before });
      if (args.flags['json'] === true) printJson(io, entries);
      else for (const entry of entries) io.stdout(`${formatEntry(entry)}\n`);
      // A full page may have older entries behind it: say how to page back (stderr, so stdout stays the entries).
      if (entries.length === limit)
        io.stderr(`vigil: older entries may follow: vigil conversation --before ${entries[0]!.seq}\n`);
      if (entries.length === 0) io.stderr('vigil: no entries.\n');
      return 0;
    },
  );
}

/** Where `search` is when it is the first positional argument (flags may come before it), else -1. */
function searchAt(argv: string[]): number {
  try {
    const { tokens } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      tokens: true,
      options: { url: { type: 'string' }, token: { type: 'string' }, 'data-dir': { type: 'string' }, ...SEARCH_FLAGS },
    });
    const first = tokens.find((token) => token.kind === 'positional');
    return first?.kind === 'positional' && first.value === 'search' ? first.index : -1;
  } catch {
    // Not a valid search line: the listing's own parse says what is wrong.
    return -1;
  }
}

/**
 * One entry as one line: `#SEQ AT ROLE[ (FROM)] TURN[ UNANSWERED CODE]: TEXT`. Control characters in the text are
 * escaped, so a multi-line answer stays on its line and a model's output cannot drive the operator's terminal.
 */
export function formatEntry(entry: ConversationEntry): string {
  const who = entry.role === 'user' && entry.from !== undefined ? `user (${entry.from})` : entry.role;
  const turn = entry.turnId ?? '-';
  const ending = entry.unanswered === undefined ? '' : ` UNANSWERED ${entry.unanswered.code}`;
  return `#${entry.seq} ${entry.at} ${who} ${turn}${ending}: ${escapeControls(entry.text)}`;
}

const CONTROL = /\p{Cc}/gu;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
