/**
 * `vigil channels list | pairings [NAME] | approve NAME CODE | senders NAME | revoke NAME SENDER_ID`: the chat
 * channels (CONTRACT §18), shorthands for the `channels.*` methods.
 */
import type { ChannelPairingView, ChannelSenderView, ChannelView } from '../../protocol/channels.schema.js';
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs, type ClientArgs } from './client-args.js';
import { printJson, runClientCommand } from './run-client-command.js';

/** The usage line. */
export const CHANNELS_USAGE =
  'usage: vigil channels list [--json] | channels pairings [NAME] [--json] | channels approve NAME CODE ' +
  '| channels senders NAME [--json] | channels revoke NAME SENDER_ID   [--url URL] [--token TOKEN] [--data-dir D]';

type ChannelsRequest =
  | { sub: 'list'; args: ClientArgs }
  | { sub: 'pairings'; channel?: string; args: ClientArgs }
  | { sub: 'approve'; channel: string; code: string; args: ClientArgs }
  | { sub: 'senders'; channel: string; args: ClientArgs }
  | { sub: 'revoke'; channel: string; senderId: string; args: ClientArgs };

const FLAGS = { json: { type: 'boolean' } } as const;

/** Runs `vigil channels …`. */
export function channelsCommand(argv: string[], io: CliIo): Promise<number> {
  return runClientCommand(
    io,
    CHANNELS_USAGE,
    () => parseChannelsArgs(argv).args,
    async (client) => {
      const request = parseChannelsArgs(argv);
      const json = request.args.flags['json'] === true;
      switch (request.sub) {
        case 'list': {
          const channels = await client.channels.list();
          if (json) printJson(io, channels);
          else for (const channel of channels) io.stdout(`${formatChannel(channel)}\n`);
          return 0;
        }
        case 'pairings': {
          const pairings = await client.channels.pairings(
            request.channel === undefined ? {} : { channel: request.channel },
          );
          if (json) printJson(io, pairings);
          else for (const pairing of pairings) io.stdout(`${formatPairing(pairing)}\n`);
          return 0;
        }
        case 'approve': {
          const approved = await client.channels.approve({ channel: request.channel, code: request.code });
          io.stdout(`approved ${approved.senderId} on ${approved.channel}\n`);
          return 0;
        }
        case 'senders': {
          const senders = await client.channels.senders({ channel: request.channel });
          if (json) printJson(io, senders);
          else for (const sender of senders) io.stdout(`${formatSender(sender)}\n`);
          return 0;
        }
        case 'revoke':
          await client.channels.revoke({ channel: request.channel, senderId: request.senderId });
          io.stdout(`revoked ${request.senderId} on ${request.channel}\n`);
          return 0;
      }
    },
  );
}

/** The parsed command line; UsageError on anything else. The daemon checks names and codes (its -32004, -32602). */
export function parseChannelsArgs(argv: string[]): ChannelsRequest {
  const args = parseClientArgs(argv, FLAGS);
  const [sub, ...rest] = args.positionals;
  const exactly = (count: number, what: string): string[] => {
    if (rest.length !== count) throw new UsageError(`channels ${sub} needs ${what}.`);
    return rest;
  };
  switch (sub) {
    case 'list':
      exactly(0, 'no arguments but --json');
      return { sub, args };
    case 'pairings':
      if (rest.length > 1) throw new UsageError('channels pairings takes at most one channel NAME.');
      return { sub, ...(rest[0] === undefined ? {} : { channel: rest[0] }), args };
    case 'approve': {
      const [channel, code] = exactly(2, 'a channel NAME and the pairing CODE the sender was given');
      return { sub, channel: channel!, code: code!, args };
    }
    case 'senders':
      return { sub, channel: exactly(1, 'one channel NAME')[0]!, args };
    case 'revoke': {
      const [channel, senderId] = exactly(2, 'a channel NAME and a SENDER_ID');
      return { sub, channel: channel!, senderId: senderId!, args };
    }
    default:
      throw new UsageError(
        sub === undefined
          ? 'channels needs a subcommand (list, pairings, approve, senders or revoke).'
          : `unknown channels subcommand "${sub}".`,
      );
  }
}

/** One channel as one line: `NAME  TYPE  STATE  ACCOUNT  pending N  in …  out …  error …`. */
export function formatChannel(channel: ChannelView): string {
  return [
    channel.name,
    channel.type,
    channel.state,
    channel.account ?? '-',
    `pending ${channel.pending}`,
    `in ${channel.lastInboundAt ?? 'never'}`,
    `out ${channel.lastOutboundAt ?? 'never'}`,
    ...(channel.error === undefined ? [] : [`error: ${channel.error}`]),
  ].join('\t');
}

/** One pairing as one line: `CHANNEL  SENDER_ID  NAME  CODE  expires AT`. */
export function formatPairing(pairing: ChannelPairingView): string {
  return [pairing.channel, pairing.senderId, pairing.name ?? '-', pairing.code, `expires ${pairing.expiresAt}`].join(
    '\t',
  );
}

/** One sender as one line: `SENDER_ID  NAME  via config|pairing  [operator]  since AT`. */
export function formatSender(sender: ChannelSenderView): string {
  return [
    sender.senderId,
    sender.name ?? '-',
    `via ${sender.via}`,
    sender.operator ? 'operator' : 'talk',
    ...(sender.since === undefined ? [] : [`since ${sender.since}`]),
  ].join('\t');
}
