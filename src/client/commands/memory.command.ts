/** `vigil memory search QUERY [--limit N] [--json]` and `vigil memory forget ID`: the agent's long-term memory. */
import type { MemorySearchHit } from '../../protocol/memory.schema.js';
import { MAX_MEMORY_SEARCH_LIMIT } from '../../protocol/memory.schema.js';
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs, type ClientArgs } from './client-args.js';
import { printJson, runClientCommand } from './run-client-command.js';

/** The usage line. */
export const MEMORY_USAGE =
  'usage: vigil memory search QUERY [--limit N] [--json] | memory forget ID  [--url URL] [--token TOKEN] [--data-dir D]';

type MemoryRequest =
  | { sub: 'search'; query: string; limit: number | undefined; args: ClientArgs }
  | { sub: 'forget'; id: string; args: ClientArgs };

/** Runs `vigil memory …`. */
export function memoryCommand(argv: string[], io: CliIo): Promise<number> {
  return runClientCommand(
    io,
    MEMORY_USAGE,
    () => parseMemoryArgs(argv).args,
    async (client) => {
      // Parsed again (pure): the shared runner hands the body only the generic arguments.
      const request = parseMemoryArgs(argv);
      if (request.sub === 'forget') {
        const result = await client.memory.forget({ id: request.id });
        io.stdout(`forgot ${result.forgotten}\n`);
        return 0;
      }
      const hits = await client.memory.search({
        query: request.query,
        ...(request.limit === undefined ? {} : { limit: request.limit }),
      });
      if (request.args.flags['json'] === true) printJson(io, hits);
      else for (const hit of hits) io.stdout(`${formatHit(hit)}\n`);
      if (hits.length === 0) io.stderr(`vigil: no long-term memory matches ${JSON.stringify(request.query)}.\n`);
      return 0;
    },
  );
}

/** The parsed command line; UsageError on anything else. */
export function parseMemoryArgs(argv: string[]): MemoryRequest {
  const args = parseClientArgs(argv, { json: { type: 'boolean' }, limit: { type: 'string' } });
  const [sub, ...rest] = args.positionals;
  if (sub === 'search') {
    if (rest.length === 0) throw new UsageError('memory search needs a QUERY.');
    const raw = args.flags['limit'];
    let limit: number | undefined;
    if (typeof raw === 'string') {
      limit = Number(raw);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_MEMORY_SEARCH_LIMIT) {
        throw new UsageError(
          `--limit ${JSON.stringify(raw)} is invalid: expected a whole number from 1 to ${MAX_MEMORY_SEARCH_LIMIT}.`,
        );
      }
    }
    return { sub, query: rest.join(' '), limit, args };
  }
  if (sub === 'forget') {
    if (rest.length !== 1) throw new UsageError('memory forget needs exactly one ID.');
    if (args.flags['limit'] !== undefined || args.flags['json'] !== undefined)
      throw new UsageError('memory forget takes no --limit or --json.');
    return { sub, id: rest[0]!, args };
  }
  throw new UsageError(
    sub === undefined ? 'memory needs a subcommand (search or forget).' : `unknown memory subcommand "${sub}".`,
  );
}

/** One hit as one line: `ID  SCORE  SOURCE  CREATED  CONTENT` (control characters of the content shown as spaces). */
export function formatHit(hit: MemorySearchHit): string {
  const content = hit.content.replace(/\p{Cc}/gu, ' ');
  return [hit.id, hit.score.toFixed(2), hit.source, hit.createdAt, content].join('\t');
}
