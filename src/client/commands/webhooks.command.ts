/**
 * `vigil webhooks add | list | remove | enable | test | deliveries | redeliver`: signed webhook endpoints (CONTRACT §16),
 * shorthands for the `webhooks.*` methods.
 */
import type { AddWebhookParams, WebhookAttempt, WebhookView } from '../../protocol/webhooks.schema.js';
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs, type ClientArgs } from './client-args.js';
import { printJson, runClientCommand } from './run-client-command.js';

/** The usage line. */
export const WEBHOOKS_USAGE =
  'usage: vigil webhooks add URL --types T1,T2 [--name N] [--json] | webhooks list [--json] | webhooks remove ID ' +
  '| webhooks enable ID | webhooks test ID [--json] | webhooks deliveries ID [--limit N] [--json] ' +
  '| webhooks redeliver ID --after SEQ   [--url URL] [--token TOKEN] [--data-dir D]';

type WebhooksRequest =
  | { sub: 'add'; params: AddWebhookParams; args: ClientArgs }
  | { sub: 'list'; args: ClientArgs }
  | { sub: 'remove' | 'enable' | 'test'; id: string; args: ClientArgs }
  | { sub: 'deliveries'; id: string; limit?: number; args: ClientArgs }
  | { sub: 'redeliver'; id: string; afterSeq: number; args: ClientArgs };

const FLAGS = {
  json: { type: 'boolean' },
  types: { type: 'string' },
  name: { type: 'string' },
  limit: { type: 'string' },
  after: { type: 'string' },
} as const;

/** Runs `vigil webhooks …`. */
export function webhooksCommand(argv: string[], io: CliIo): Promise<number> {
  return runClientCommand(
    io,
    WEBHOOKS_USAGE,
    () => parseWebhooksArgs(argv).args,
    async (client) => {
      const request = parseWebhooksArgs(argv);
      const json = request.args.flags['json'] === true;
      switch (request.sub) {
        case 'add': {
          const added = await client.webhooks.add(request.params);
          if (json) {
            printJson(io, added);
            return 0;
          }
          // The id and the secret on stdout (`> file` keeps them); what they are, on stderr.
          io.stdout(`${added.id}\t${added.secret}\n`);
          io.stderr(
            `vigil: webhook ${added.id} ("${added.name}") added for ${added.types.join(', ')}: events of those types ` +
              'journaled from now on are POSTed to it, signed (Standard Webhooks).\n' +
              'vigil: this is the only time its signing secret is shown; store it now.\n',
          );
          return 0;
        }
        case 'list': {
          const webhooks = await client.webhooks.list();
          if (json) printJson(io, webhooks);
          else for (const webhook of webhooks) io.stdout(`${formatWebhook(webhook)}\n`);
          return 0;
        }
        case 'remove':
          await client.webhooks.remove({ id: request.id });
          io.stdout(`removed ${request.id}\n`);
          return 0;
        case 'enable':
          await client.webhooks.enable({ id: request.id });
          io.stdout(`enabled ${request.id}\n`);
          return 0;
        case 'test': {
          const attempt = await client.webhooks.test({ id: request.id });
          if (json) printJson(io, attempt);
          else io.stdout(`${formatAttempt(attempt)}\n`);
          // The test failed when the receiver did not answer 2xx: say so in the exit code too.
          return attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300 ? 0 : 1;
        }
        case 'deliveries': {
          const attempts = await client.webhooks.deliveries({
            id: request.id,
            ...(request.limit === undefined ? {} : { limit: request.limit }),
          });
          if (json) printJson(io, attempts);
          else for (const attempt of attempts) io.stdout(`${formatAttempt(attempt)}\n`);
          return 0;
        }
        case 'redeliver':
          await client.webhooks.redeliver({ id: request.id, afterSeq: request.afterSeq });
          io.stdout(`redelivering ${request.id} after seq ${request.afterSeq}\n`);
          return 0;
      }
    },
  );
}

/** The parsed command line; UsageError on anything else. The daemon checks URLs, types and ids (its -32602, -32004). */
export function parseWebhooksArgs(argv: string[]): WebhooksRequest {
  const args = parseClientArgs(argv, FLAGS);
  const [sub, ...rest] = args.positionals;
  const flag = (name: keyof typeof FLAGS): string | undefined => {
    const value = args.flags[name];
    return typeof value === 'string' ? value : undefined;
  };
  const only = (allowed: ReadonlyArray<keyof typeof FLAGS>): void => {
    const extra = (['types', 'name', 'limit', 'after'] as const).filter(
      (name) => flag(name) !== undefined && !allowed.includes(name),
    );
    if (extra.length > 0) throw new UsageError(`webhooks ${sub} does not take --${extra.join(', --')}.`);
  };
  const oneId = (): string => {
    if (rest.length !== 1) throw new UsageError(`webhooks ${sub} needs exactly one ID.`);
    return rest[0]!;
  };
  switch (sub) {
    case 'add': {
      only(['types', 'name']);
      if (rest.length !== 1) throw new UsageError('webhooks add needs exactly one URL.');
      const types = (flag('types') ?? '')
        .split(',')
        .map((type) => type.trim())
        .filter((type) => type.length > 0);
      if (types.length === 0) throw new UsageError('webhooks add needs --types, e.g. --types agent.reply,tool.*');
      const name = flag('name');
      return { sub, params: { url: rest[0]!, types, ...(name === undefined ? {} : { name }) }, args };
    }
    case 'list':
      only([]);
      if (rest.length > 0) throw new UsageError('webhooks list takes no arguments but --json.');
      return { sub, args };
    case 'remove':
    case 'enable':
    case 'test':
      only([]);
      return { sub, id: oneId(), args };
    case 'deliveries': {
      only(['limit']);
      const id = oneId();
      const limit = flag('limit');
      if (limit !== undefined && !/^\d+$/.test(limit)) throw new UsageError('--limit takes a whole number.');
      return { sub, id, ...(limit === undefined ? {} : { limit: Number(limit) }), args };
    }
    case 'redeliver': {
      only(['after']);
      const id = oneId();
      const after = flag('after');
      if (after === undefined || !/^\d+$/.test(after))
        throw new UsageError('webhooks redeliver needs --after SEQ (a whole number: events after it go out again).');
      return { sub, id, afterSeq: Number(after), args };
    }
    default:
      throw new UsageError(
        sub === undefined
          ? 'webhooks needs a subcommand (add, list, remove, enable, test, deliveries or redeliver).'
          : `unknown webhooks subcommand "${sub}".`,
      );
  }
}

/** How the last attempt ended: `(STATUS)` when an HTTP answer came back, else `(REASON)` (refused, timeout, dns, …). */
function lastOutcome(webhook: WebhookView): string {
  if (webhook.lastStatus !== null) return ` (${webhook.lastStatus})`;
  return webhook.lastReason === null ? '' : ` (${webhook.lastReason})`;
}

/**
 * One endpoint as one line: `ID  NAME  STATE  URL  types T  delivered through S  backlog B  last AT (STATUS|REASON)`,
 * never the secret.
 */
export function formatWebhook(webhook: WebhookView): string {
  return [
    webhook.id,
    webhook.name,
    webhook.state,
    webhook.url,
    `types ${webhook.types.join(',')}`,
    `delivered through ${webhook.deliveredSeq}`,
    `backlog ${webhook.backlog}`,
    `last ${webhook.lastAttemptAt ?? 'never'}${lastOutcome(webhook)}`,
  ].join('\t');
}

/** One attempt as one line: `AT  seq S  attempt N  STATUS|error  MS ms  WEBHOOK_ID`. */
export function formatAttempt(attempt: WebhookAttempt): string {
  return [
    attempt.at,
    `seq ${attempt.seq}`,
    `attempt ${attempt.attempt}`,
    attempt.status === undefined ? `error: ${attempt.error ?? 'unknown'}` : `HTTP ${attempt.status}`,
    `${Math.round(attempt.ms)} ms`,
    attempt.webhookId,
  ].join('\t');
}
