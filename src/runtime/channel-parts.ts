/**
 * The configured channels' parts, built at boot: each one's store and platform adapter. A platform's library (grammY
 * for Telegram, Slack's SDK for Slack) is loaded only when a channel of its type is configured, so a daemon without
 * channels pays nothing.
 */
import { loadOnce } from '../shared/load-once.js';
import type { ChannelConfig, ChannelsConfigFile } from '../protocol/channels.schema.js';
import type { ChannelAdapter } from '../subsystems/channels/channel-adapter.js';
import type { ChannelRunner } from '../subsystems/channels/channel-runner.js';
import type { ChannelStore } from '../subsystems/channels/channel-store.js';
import type { VigilDb } from '../subsystems/store/vigil-db.js';
import { silentLogger, type VigilLogger } from '../shared/logger.js';
import type { ChannelInjection } from './runtime-options.js';

/** The channel core (runner, inbox, outbox, the platforms' text formats): loaded for a configured channel, once only. */
export const loadChannelCore = loadOnce(() =>
  Promise.all([import('../subsystems/channels/channel-store.js'), import('../subsystems/channels/channel-runner.js')]),
);
/** One configured channel's parts. */
export interface ChannelPart {
  entry: ChannelConfig;
  store: ChannelStore;
  adapter: ChannelAdapter;
  /** The runner's class, loaded with the channel core only when a channel is configured. */
  Runner: typeof ChannelRunner;
  /** A new pairing code (default: crypto). */
  newCode?: () => string;
}

/** Opens each configured channel's store and makes its adapter (none when no channel is configured). */
export async function openChannelParts(
  db: VigilDb,
  config: ChannelsConfigFile,
  injection: ChannelInjection,
  log: VigilLogger = silentLogger,
): Promise<Map<string, ChannelPart>> {
  const parts = new Map<string, ChannelPart>();
  const entries = Object.entries(config.channels);
  // The channel core (runner, inbox, outbox, the platforms' text formats) is loaded only for a configured channel.
  if (entries.length === 0) return parts;
  const [{ ChannelStore }, { ChannelRunner }] = await loadChannelCore();
  for (const [name, entry] of entries) {
    const store = await ChannelStore.open(db, name);
    const adapter = await adapterFor(name, entry, injection, log);
    parts.set(name, {
      entry,
      store,
      adapter,
      Runner: ChannelRunner,
      ...(injection.newCode === undefined ? {} : { newCode: injection.newCode }),
    });
  }
  return parts;
}

async function adapterFor(
  name: string,
  entry: ChannelConfig,
  injection: ChannelInjection,
  log: VigilLogger,
): Promise<ChannelAdapter> {
  // The file names the variables; loadConfig checked they are set (an embedder passes `injection.env` or process.env).
  const env = injection.env ?? process.env;
  const secret = env[primarySecretEnv(entry)] ?? '';
  if (injection.createAdapter !== undefined) return injection.createAdapter(name, entry, secret);
  if (entry.type === 'email') {
    const { EmailAdapter } = await import('../subsystems/channels/email/email-adapter.js');
    return new EmailAdapter({
      channel: name,
      imapUrl: entry.imapUrl,
      smtpUrl: entry.smtpUrl,
      user: env[entry.userEnv] ?? '',
      password: secret,
      address: entry.address,
      mailbox: entry.mailbox,
      sentMailbox: entry.sentMailbox,
      ...(entry.authServId === undefined ? {} : { authServId: entry.authServId }),
      ...(injection.pollTimeoutS === undefined ? {} : { idleMs: injection.pollTimeoutS * 1000 }),
    });
  }
  if (entry.type === 'slack') {
    const { SlackAdapter } = await import('../subsystems/channels/slack/slack-adapter.js');
    return new SlackAdapter({
      botToken: secret,
      ...(entry.appTokenEnv === undefined ? {} : { appToken: env[entry.appTokenEnv] ?? '' }),
      ...(entry.signingSecretEnv === undefined ? {} : { signingSecret: env[entry.signingSecretEnv] ?? '' }),
      apiUrl: entry.apiUrl,
      groups: entry.groups,
      log,
    });
  }
  const { TelegramAdapter } = await import('../subsystems/channels/telegram/telegram-adapter.js');
  return new TelegramAdapter({
    token: secret,
    apiRoot: entry.apiRoot,
    ...(injection.pollTimeoutS === undefined ? {} : { pollTimeoutS: injection.pollTimeoutS }),
  });
}

// The secret an injected adapter is given: the one credential of the entry (email: the password).
function primarySecretEnv(entry: ChannelConfig): string {
  if (entry.type === 'slack') return entry.botTokenEnv;
  if (entry.type === 'email') return entry.passwordEnv;
  return entry.tokenEnv;
}
