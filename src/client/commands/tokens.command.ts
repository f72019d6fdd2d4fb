/** `vigil tokens create | list | revoke`: scoped gateway tokens (CONTRACT §14), shorthands for the `tokens.*` methods. */
import type { CreateTokenParams, TokenView } from '../../protocol/tokens.schema.js';
import { TokenScopeSchema } from '../../protocol/token-scopes.js';
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs, type ClientArgs } from './client-args.js';
import { printJson, runClientCommand } from './run-client-command.js';

/** The usage line. */
export const TOKENS_USAGE =
  'usage: vigil tokens create --scope read|talk|operate [--name N] [--expires DURATION] [--json] | tokens list [--json] ' +
  '| tokens revoke NAME   [--url URL] [--token TOKEN] [--data-dir D]';

type TokensRequest =
  | { sub: 'create'; params: CreateTokenParams; args: ClientArgs }
  | { sub: 'list'; args: ClientArgs }
  | { sub: 'revoke'; name: string; args: ClientArgs };

const FLAGS = {
  json: { type: 'boolean' },
  scope: { type: 'string' },
  name: { type: 'string' },
  expires: { type: 'string' },
} as const;

/** Runs `vigil tokens …`. */
export function tokensCommand(argv: string[], io: CliIo): Promise<number> {
  return runClientCommand(
    io,
    TOKENS_USAGE,
    () => parseTokensArgs(argv).args,
    async (client) => {
      const request = parseTokensArgs(argv);
      const json = request.args.flags['json'] === true;
      switch (request.sub) {
        case 'create': {
          const created = await client.tokens.create(request.params);
          if (json) {
            printJson(io, created);
            return 0;
          }
          // The secret alone on stdout (`> file` keeps just it); what it is, on stderr.
          io.stdout(`${created.token}\n`);
          io.stderr(
            `vigil: token "${created.name}" created, scope ${created.scope}, ${created.expiresAt === null ? 'never expires' : `expires ${created.expiresAt}`}.\n` +
              'vigil: this is the only time its secret is shown; store it now. Revoke it with `vigil tokens revoke ' +
              `${created.name}\`.\n`,
          );
          return 0;
        }
        case 'list': {
          const tokens = await client.tokens.list();
          if (json) printJson(io, tokens);
          else for (const token of tokens) io.stdout(`${formatToken(token)}\n`);
          return 0;
        }
        case 'revoke':
          await client.tokens.revoke({ name: request.name });
          io.stdout(`revoked ${request.name}\n`);
          return 0;
      }
    },
  );
}

/** The parsed command line; UsageError on anything else. The daemon checks names and durations (its -32602). */
export function parseTokensArgs(argv: string[]): TokensRequest {
  const args = parseClientArgs(argv, FLAGS);
  const [sub, ...rest] = args.positionals;
  const flag = (name: keyof typeof FLAGS): string | undefined => {
    const value = args.flags[name];
    return typeof value === 'string' ? value : undefined;
  };
  const createFlags = (['scope', 'name', 'expires'] as const).filter((name) => flag(name) !== undefined);
  if (sub === 'list') {
    if (rest.length > 0 || createFlags.length > 0) throw new UsageError('tokens list takes no arguments but --json.');
    return { sub, args };
  }
  if (sub === 'revoke') {
    if (rest.length !== 1 || createFlags.length > 0) throw new UsageError('tokens revoke needs exactly one NAME.');
    return { sub, name: rest[0]!, args };
  }
  if (sub === 'create') {
    if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
    const scope = TokenScopeSchema.safeParse(flag('scope'));
    if (!scope.success) throw new UsageError('tokens create needs --scope read, talk or operate.');
    const expires = flag('expires');
    const params: CreateTokenParams = {
      scope: scope.data,
      ...(flag('name') === undefined ? {} : { name: flag('name') }),
      // A bare number is seconds, as expiresIn takes it; anything else goes as the duration string it is.
      ...(expires === undefined ? {} : { expiresIn: /^\d+$/.test(expires) ? Number(expires) : expires }),
    };
    return { sub, params, args };
  }
  throw new UsageError(
    sub === undefined ? 'tokens needs a subcommand (create, list or revoke).' : `unknown tokens subcommand "${sub}".`,
  );
}

/** One token as one line: `NAME  SCOPE  created C  expires E  last used U`, never the secret. */
export function formatToken(token: TokenView): string {
  return [
    token.name,
    token.scope,
    `created ${token.createdAt}`,
    `expires ${token.expiresAt ?? 'never'}`,
    `last used ${token.lastUsedAt ?? 'never'}`,
  ].join('\t');
}
