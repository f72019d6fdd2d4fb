/**
 * The facade's channels area (CONTRACT §18): the configured chat channels' lifecycle beside the heartbeat, and
 * `channels.list/pairings/approve/senders/revoke`. Nothing here is loaded unless a channel is configured.
 */
import { VigilError } from '../../errors.js';
import type {
  ChannelApproved,
  ChannelConfig,
  ChannelPairingView,
  ChannelSenderView,
  ChannelView,
} from '../../protocol/channels.schema.js';
import type { ChannelWebhook } from '../../subsystems/channels/channel-adapter.js';
// The gateway's route carries a platform's pushes to a channel's webhook; it reaches the type through the runtime.
export type { ChannelWebhook } from '../../subsystems/channels/channel-adapter.js';
import type { ChannelRunner } from '../../subsystems/channels/channel-runner.js';
import type { ChannelStore } from '../../subsystems/channels/channel-store.js';
import { normalisePairingCode } from '../../subsystems/channels/pairing-code.js';
import { channelHostOf } from '../channel-turns.js';
import { iso, type RuntimeCore } from '../runtime-core.js';

/** A configured channel: its entry, store and runner. */
interface Channel {
  entry: ChannelConfig;
  store: ChannelStore;
  runner: ChannelRunner;
}

/** The chat channels as the facade offers them. */
export class ChannelsFacade {
  private readonly channels = new Map<string, Channel>();

  constructor(private readonly core: RuntimeCore) {
    const { channels, clock, log } = core.parts;
    if (channels.size === 0) return;
    const host = channelHostOf(core);
    for (const [name, { entry, store, adapter, Runner, newCode }] of channels) {
      const runner = new Runner({
        name,
        type: entry.type,
        adapter,
        store,
        access: entry,
        host,
        clock,
        log,
        ...(newCode === undefined ? {} : { newCode }),
      });
      this.channels.set(name, { entry, store, runner });
    }
  }

  /** Starts every channel (after the heartbeat: replies to turns it replays go out as they end). */
  start(): void {
    for (const { runner, entry } of this.channels.values()) {
      if (entry.dmPolicy === 'open') {
        this.core.parts.log.warn(
          { channel: runner.name },
          'channel is open: anyone who finds the bot can talk to the agent and spend its budget',
        );
      }
      runner
        .start()
        .catch((err: unknown) => this.core.parts.log.error({ channel: runner.name, err }, 'channel failed to start'));
    }
  }

  /** Stops every channel; what is in flight finishes and is written. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.channels.values()].map(({ runner }) => runner.stop()));
  }

  /** `channels.list`. */
  list(): ChannelView[] {
    return [...this.channels.values()].map(({ runner }) => runner.view());
  }

  /** Where channel `name`'s platform pushes updates over HTTP (Slack's Events API), if it does. */
  webhook(name: string): ChannelWebhook | undefined {
    return this.core.parts.channels.get(name)?.adapter.webhook;
  }

  /** `channels.pairings`: strangers waiting with a live code, oldest first. */
  pairings(channel?: string): ChannelPairingView[] {
    const now = this.core.parts.clock.now();
    const names = channel === undefined ? [...this.channels.keys()] : [this.get(channel) && channel];
    return names.flatMap((name) =>
      this.get(name)
        .store.allPairings()
        .filter(([, pairing]) => pairing.expiresAt > now)
        .sort(([, a], [, b]) => a.expiresAt - b.expiresAt)
        .map(([senderId, pairing]) => ({
          channel: name,
          senderId,
          ...(pairing.name === undefined ? {} : { name: pairing.name }),
          code: pairing.code,
          expiresAt: iso(pairing.expiresAt),
        })),
    );
  }

  /** `channels.approve`: the sender waiting with `code` may talk from now on (durable); `channel.paired`. */
  async approve(channel: string, code: string): Promise<ChannelApproved> {
    this.core.assertRunning();
    const { store } = this.get(channel);
    const { clock, bus, journal } = this.core.parts;
    const now = clock.now();
    const wanted = normalisePairingCode(code);
    const found = store.allPairings().find(([, pairing]) => pairing.code === wanted && pairing.expiresAt > now);
    if (found === undefined) {
      throw new VigilError('CHANNEL_CODE_INVALID', `No sender of channel ${channel} waits with pairing code ${code}.`, {
        data: [{ code: 'custom', path: ['code'], message: 'expected a pairing code given within the last hour' }],
      });
    }
    const [senderId, pairing] = found;
    const sender = { ...(pairing.name === undefined ? {} : { name: pairing.name }), since: now };
    const event = bus.stamp('channel.paired', { channel, senderId });
    try {
      await store.write([...store.approvalOps(senderId, sender), journal.entryOp(event)]);
    } catch (err) {
      bus.withdraw(event);
      throw err;
    }
    store.committed({ approved: [[senderId, sender]] });
    bus.publish(event);
    return { channel, senderId };
  }

  /** `channels.senders`: who may talk, from the file and by pairing. */
  senders(channel: string): ChannelSenderView[] {
    const { entry, store } = this.get(channel);
    const fromFile = [...new Set([...entry.allowFrom, ...entry.operators])].map((senderId): ChannelSenderView => ({
      senderId,
      via: 'config',
      operator: entry.operators.includes(senderId),
    }));
    const paired = store
      .approvals()
      .filter(([senderId]) => !fromFile.some((sender) => sender.senderId === senderId))
      .map(([senderId, sender]): ChannelSenderView => ({
        senderId,
        ...(sender.name === undefined ? {} : { name: sender.name }),
        via: 'pairing',
        since: iso(sender.since),
        operator: entry.operators.includes(senderId),
      }));
    return [...fromFile, ...paired];
  }

  /** `channels.revoke`: a paired sender may no longer talk (a stranger again). */
  async revoke(channel: string, senderId: string): Promise<true> {
    this.core.assertRunning();
    const { entry, store } = this.get(channel);
    if (store.approval(senderId) === undefined) {
      const inFile = entry.allowFrom.includes(senderId) || entry.operators.includes(senderId);
      throw new VigilError(
        'CHANNEL_SENDER_NOT_FOUND',
        inFile
          ? `Sender ${senderId} is allowed on channel ${channel} by VIGIL_CHANNELS_CONFIG: remove it there.`
          : `Sender ${senderId} was never paired on channel ${channel}.`,
        { data: { channel, senderId } },
      );
    }
    await store.write([store.revocationOp(senderId)]);
    store.committed({ revoked: [senderId] });
    return true;
  }

  private get(channel: string): Channel {
    const found = this.channels.get(channel);
    if (found === undefined) {
      throw new VigilError('CHANNEL_NOT_FOUND', `No channel named ${channel} is configured.`, { data: { channel } });
    }
    return found;
  }
}
