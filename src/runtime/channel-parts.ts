/**
 * The configured channels' parts, built at boot: each one's store and platform adapter. A platform's library (grammY
 * for Telegram) is loaded only when a channel of its type is configured, so a daemon without channels pays nothing.
 */
import type { ChannelConfig, ChannelsConfigFile } from '../protocol/channels.schema.js';
import type { ChannelAdapter } from '../subsystems/channels/channel-adapter.js';
import { ChannelStore } from '../subsystems/channels/channel-store.js';
import type { VigilDb } from '../subsystems/store/vigil-db.js';
import type { ChannelInjection } from './runtime-options.js';

/** One configured channel's parts. */
export interface ChannelPart {
  entry: ChannelConfig;
  store: ChannelStore;
  adapter: ChannelAdapter;
  /** A new pairing code (default: crypto). */
  newCode?: () => string;
}

/** Opens each configured channel's store and makes its adapter (none when no channel is configured). */
export async function openChannelParts(
  db: VigilDb,
  config: ChannelsConfigFile,
  injection: ChannelInjection,
): Promise<Map<string, ChannelPart>> {
  const parts = new Map<string, ChannelPart>();
  for (const [name, entry] of Object.entries(config.channels)) {
    const store = await ChannelStore.open(db, name);
    const adapter = await adapterFor(name, entry, injection);
    parts.set(name, {
      entry,
      store,
      adapter,
      ...(injection.newCode === undefined ? {} : { newCode: injection.newCode }),
    });
  }
  return parts;
}

async function adapterFor(name: string, entry: ChannelConfig, injection: ChannelInjection): Promise<ChannelAdapter> {
  // The file names the variable; loadConfig checked it is set (an embedder passes `injection.env` or process.env).
  const secret = (injection.env ?? process.env)[entry.tokenEnv] ?? '';
  if (injection.createAdapter !== undefined) return injection.createAdapter(name, entry, secret);
  const { TelegramAdapter } = await import('../subsystems/channels/telegram/telegram-adapter.js');
  return new TelegramAdapter({
    token: secret,
    apiRoot: entry.apiRoot,
    ...(injection.pollTimeoutS === undefined ? {} : { pollTimeoutS: injection.pollTimeoutS }),
  });
}
