/**
 * Channels (CONTRACT §18): the `VIGIL_CHANNELS_CONFIG` file's entries, and the `channels.*` params and results. What
 * the channel core stores per message lives beside it in `channel-records.schema.ts`.
 */
import { z } from 'zod';
import { isoTime } from './iso-time.js';

/** A channel's name in the file: a short identifier, since it is part of store keys and of every sender's `from`. */
export const ChannelNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/, { error: 'expected a name of letters, digits, - and _ (at most 32)' });

/** A platform's id for a sender, a chat or a message, as a string (Telegram's are numbers, Slack's and email's not). */
export const PlatformIdSchema = z.string().min(1).max(200);

/** Who may send direct messages (§18): pairing by default. */
export const DmPolicySchema = z.enum(['pairing', 'allowlist', 'open', 'disabled']);
export type DmPolicy = z.infer<typeof DmPolicySchema>;

/** An environment variable's name, as an entry names the ones holding its secrets. */
const EnvNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'expected an environment variable name' });

// Ids may be written as JSON numbers (Telegram's are); they are compared as strings.
const IdListSchema = z.array(z.union([z.string().min(1), z.number().int()]).transform(String)).default([]);

/** What every channel entry has: who may talk, and how. */
const AccessFields = {
  dmPolicy: DmPolicySchema.default('pairing'),
  allowFrom: IdListSchema,
  groups: IdListSchema,
  operators: IdListSchema,
};

/** A Telegram bot, long polling `getUpdates` at `apiRoot` (a self-hosted Bot API server, or a test's fake). */
export const TelegramChannelConfigSchema = z
  .object({
    type: z.literal('telegram'),
    tokenEnv: EnvNameSchema,
    apiRoot: z
      .url({ protocol: /^https?$/, error: 'expected an http(s) URL such as https://api.telegram.org' })
      .transform((url) => url.replace(/\/+$/, ''))
      .default('https://api.telegram.org'),
    ...AccessFields,
  })
  .strict();
export type TelegramChannelConfig = z.infer<typeof TelegramChannelConfigSchema>;

/**
 * A Slack app: Socket Mode with `appTokenEnv` (no public URL needed), or the Events API through the gateway with
 * `signingSecretEnv` (one of the two at least; Socket Mode when both). Web API calls go to `apiUrl` (or a test's fake).
 */
export const SlackChannelConfigSchema = z
  .object({
    type: z.literal('slack'),
    botTokenEnv: EnvNameSchema,
    appTokenEnv: EnvNameSchema.optional(),
    signingSecretEnv: EnvNameSchema.optional(),
    apiUrl: z
      .url({ protocol: /^https?$/, error: 'expected an http(s) URL such as https://slack.com/api/' })
      .transform((url) => (url.endsWith('/') ? url : `${url}/`))
      .default('https://slack.com/api/'),
    ...AccessFields,
  })
  .strict()
  .refine((entry) => entry.appTokenEnv !== undefined || entry.signingSecretEnv !== undefined, {
    error: 'a slack entry needs appTokenEnv (Socket Mode) or signingSecretEnv (Events API)',
    path: ['appTokenEnv'],
  });
export type SlackChannelConfig = z.infer<typeof SlackChannelConfigSchema>;

/** `imap://` or `imaps://` (TLS), a host and an optional port; `smtp://` or `smtps://` likewise. */
const mailUrl = (schemes: readonly [string, string]) =>
  z.url({
    protocol: new RegExp(`^(${schemes.join('|')})$`),
    error: `expected a URL such as ${schemes[1]}://mail.example.org (${schemes[0]}:// is plain, STARTTLS when offered)`,
  });

/** A mail address, compared in lower case (a sender's id is its address). */
const AddressSchema = z.email().transform((address) => address.toLowerCase());

/**
 * A mailbox the agent reads over IMAP and answers from over SMTP, one account for both (`userEnv`, `passwordEnv`).
 * Pairing needs a reply to a stranger, which mail makes a way to spam anyone: senders are listed (`allowFrom`,
 * `operators`), or `open`. Email has no groups.
 */
export const EmailChannelConfigSchema = z
  .object({
    type: z.literal('email'),
    imapUrl: mailUrl(['imap', 'imaps']),
    smtpUrl: mailUrl(['smtp', 'smtps']),
    userEnv: EnvNameSchema,
    passwordEnv: EnvNameSchema,
    /** The agent's From. */
    address: AddressSchema,
    mailbox: z.string().min(1).default('INBOX'),
    /** Where each reply is kept, before it goes, so a send a crash cut short is recognised (created if missing). */
    sentMailbox: z.string().min(1).default('Sent'),
    /** When set, only an `Authentication-Results` header from this server counts, and one must be there. */
    authServId: z.string().min(1).optional(),
    dmPolicy: z.enum(['allowlist', 'open', 'disabled']).default('allowlist'),
    allowFrom: z.array(AddressSchema).default([]),
    operators: z.array(AddressSchema).default([]),
    groups: z.array(z.never()).default([]),
  })
  .strict();
export type EmailChannelConfig = z.infer<typeof EmailChannelConfigSchema>;

/** The platforms this version can talk through. */
export const CHANNEL_TYPES = ['telegram', 'slack', 'email'] as const;

/** One entry of the file; further platforms join this union. An unknown `type` is named in the error. */
export const ChannelConfigSchema = z.discriminatedUnion(
  'type',
  [TelegramChannelConfigSchema, SlackChannelConfigSchema, EmailChannelConfigSchema],
  {
    error: (issue) => {
      const type = (issue.input as { type?: unknown } | undefined)?.type;
      return `expected "type" to be one of ${CHANNEL_TYPES.join(', ')}, not ${JSON.stringify(type ?? null)}`;
    },
  },
);
export type ChannelConfig = z.infer<typeof ChannelConfigSchema>;

/** `VIGIL_CHANNELS_CONFIG`'s file: `{"channels": {NAME: {type, …}}}`. */
export const ChannelsConfigFileSchema = z
  .object({
    channels: z.record(ChannelNameSchema, ChannelConfigSchema).default({}),
  })
  .strict();
export type ChannelsConfigFile = z.infer<typeof ChannelsConfigFileSchema>;

/** The environment variables an entry names for its secrets (each must be set). */
export function secretEnvNames(entry: ChannelConfig): string[] {
  if (entry.type === 'email') return [entry.userEnv, entry.passwordEnv];
  if (entry.type === 'slack') {
    return [entry.botTokenEnv, entry.appTokenEnv, entry.signingSecretEnv].filter((name) => name !== undefined);
  }
  return [entry.tokenEnv];
}

/** A channel's connection as `channels.list` shows it. */
export const ChannelStateNameSchema = z.enum(['connecting', 'ok', 'failing', 'disabled']);
export type ChannelStateName = z.infer<typeof ChannelStateNameSchema>;

/** `channels.list`: one entry per configured channel. */
export const ChannelViewSchema = z.object({
  name: z.string(),
  type: z.string(),
  state: ChannelStateNameSchema,
  /** The bot's account once connected (Telegram: `@username`). */
  account: z.string().optional(),
  error: z.string().optional(),
  lastInboundAt: isoTime.optional(),
  lastOutboundAt: isoTime.optional(),
  /** Replies not yet delivered to their chats. */
  pending: z.number().int().nonnegative(),
});
export type ChannelView = z.infer<typeof ChannelViewSchema>;

/** `channels.senders`: who may talk on a channel, and how they came to. */
export const ChannelSenderViewSchema = z.object({
  senderId: z.string(),
  name: z.string().optional(),
  via: z.enum(['config', 'pairing']),
  since: isoTime.optional(),
  operator: z.boolean(),
});
export type ChannelSenderView = z.infer<typeof ChannelSenderViewSchema>;

/** `channels.pairings`: a stranger waiting with a code. */
export const ChannelPairingViewSchema = z.object({
  channel: z.string(),
  senderId: z.string(),
  name: z.string().optional(),
  code: z.string(),
  expiresAt: isoTime,
});
export type ChannelPairingView = z.infer<typeof ChannelPairingViewSchema>;

/** `{channel}`. */
export const ChannelParamsSchema = z.object({ channel: z.string().min(1) });
/** `channels.pairings {channel?}`. */
export const ChannelPairingsParamsSchema = z.object({ channel: z.string().min(1).optional() });
/** `channels.approve {channel, code}`. */
export const ChannelApproveParamsSchema = z.object({ channel: z.string().min(1), code: z.string().min(1).max(64) });
/** `channels.approve`'s answer. */
export const ChannelApprovedSchema = z.object({ channel: z.string(), senderId: z.string() });
export type ChannelApproved = z.infer<typeof ChannelApprovedSchema>;
/** `channels.revoke {channel, senderId}`. */
export const ChannelRevokeParamsSchema = z.object({
  channel: z.string().min(1),
  senderId: z.union([z.string().min(1), z.number().int()]).transform(String),
});
