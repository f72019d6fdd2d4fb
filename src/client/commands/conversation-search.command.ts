/** `vigil conversation search QUERY [--limit N] [--before T] [--after T] [--json]`: the conversation searched by words. */
import {
  ConversationSearchParamsSchema,
  MAX_CONVERSATION_SEARCH_LIMIT,
  type ConversationSearchHit,
  type ConversationSearchParams,
} from '../../protocol/conversation.schema.js';
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs, type ClientArgs } from './client-args.js';
import { printJson, runClientCommand } from './run-client-command.js';

/** The usage line. */
export const CONVERSATION_SEARCH_USAGE =
  'usage: vigil conversation search QUERY [--limit N] [--before T] [--after T] [--json] [--url URL] [--token TOKEN] [--data-dir D]';

/** The arguments `conversation search` takes besides the shared ones. */
export const CONVERSATION_SEARCH_FLAGS = {
  limit: { type: 'string' },
  before: { type: 'string' },
  after: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** Runs `vigil conversation search …` (`argv` without the `search`). */
export function conversationSearchCommand(argv: string[], io: CliIo): Promise<number> {
  return runClientCommand(
    io,
    CONVERSATION_SEARCH_USAGE,
    () => parseConversationSearchArgs(argv).args,
    async (client) => {
      // Parsed again (pure): the shared runner hands the body only the generic arguments.
      const { params, args } = parseConversationSearchArgs(argv);
      const hits = await client.conversation.search(params);
      if (args.flags['json'] === true) printJson(io, hits);
      else for (const hit of hits) io.stdout(`${formatSearchHit(hit)}\n`);
      if (hits.length === 0) io.stderr(`vigil: no message matches ${JSON.stringify(params.query)}.\n`);
      return 0;
    },
  );
}

/** The search's params from the command line; UsageError (exit 2) naming the flag on a bad value. */
export function parseConversationSearchArgs(argv: string[]): { params: ConversationSearchParams; args: ClientArgs } {
  const args = parseClientArgs(argv, CONVERSATION_SEARCH_FLAGS);
  const query = args.positionals.join(' ').trim();
  if (query === '') throw new UsageError('conversation search needs a QUERY.');
  const raw = args.flags['limit'];
  if (raw !== undefined && (!/^[1-9]\d*$/.test(String(raw)) || Number(raw) > MAX_CONVERSATION_SEARCH_LIMIT)) {
    throw new UsageError(
      `--limit must be an integer from 1 to ${MAX_CONVERSATION_SEARCH_LIMIT}, not ${JSON.stringify(raw)}.`,
    );
  }
  const params: ConversationSearchParams = { query, ...(raw === undefined ? {} : { limit: Number(raw) }) };
  for (const flag of ['before', 'after'] as const) {
    const value = args.flags[flag];
    if (value === undefined) continue;
    if (!ConversationSearchParamsSchema.shape[flag].safeParse(value).success) {
      throw new UsageError(
        `--${flag} must be an ISO time with a zone (2026-03-01T10:00:00Z), not ${JSON.stringify(value)}.`,
      );
    }
    params[flag] = String(value);
  }
  return { params, args };
}

/**
 * One hit as one line: `#SEQ AT ROLE[ (FROM)] SCORE: TEXT`. Control characters in the text are escaped, so a
 * multi-line message stays on its line and a model's output cannot drive the operator's terminal.
 */
export function formatSearchHit(hit: ConversationSearchHit): string {
  const who = hit.role === 'user' && hit.from !== undefined ? `user (${hit.from})` : hit.role;
  const text = hit.text.replace(/\p{Cc}/gu, (c) => (c === '\n' ? '\\n' : ' '));
  return `#${hit.seq} ${hit.at} ${who} ${hit.score.toFixed(2)}: ${text}`;
}
