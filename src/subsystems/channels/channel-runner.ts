/**
 * One channel at work: connects through its adapter, long-polls the platform from the store's cursor into the inbox,
 * and runs the outbox; a refused token or an unreachable platform never stops the daemon, it makes the channel
 * `failing` (announced once) and is retried with backoff at most a minute apart until it `recovered`.
 */
import type { ChannelView } from '../../protocol/channels.schema.js';
import { delay, type Clock } from '../../shared/clock.js';
import type { VigilLogger } from '../../shared/logger.js';
import { ChannelCallError, type ChannelAdapter } from './channel-adapter.js';
import type { ChannelHost } from './channel-host.js';
import { ChannelInbox } from './channel-inbox.js';
import { linkStateName, linkTransition, retryDelayMs, type LinkState } from './channel-link.machine.js';
import { ChannelOutbox } from './channel-outbox.js';
import type { ChannelStore } from './channel-store.js';
import { PAIRING_TTL_MS } from './pairing-code.js';
import type { AccessSettings } from './sender-policy.js';

/** How long an admitted message's record is kept to recognise a redelivery (platforms redeliver for a day at most). */
export const INBOX_KEEP_MS = 7 * 24 * 3_600_000;
/** The inbox is pruned every this many hourly ticks (daily). */
const INBOX_PRUNE_EVERY_TICKS = 24;

/** What a channel is built from. */
export interface ChannelRunnerOptions {
  name: string;
  type: string;
  adapter: ChannelAdapter;
  store: ChannelStore;
  access: AccessSettings;
  host: ChannelHost;
  clock: Clock;
  log: VigilLogger;
  /** A new pairing code (default: crypto). */
  newCode?: () => string;
}

/** A configured channel: its loops, its state for `channels.list`. */
export class ChannelRunner {
  readonly outbox: ChannelOutbox;
  private readonly inbox: ChannelInbox;
  private link: LinkState = { state: 'connecting' };
  private account: string | undefined;
  private connected = false;
  private lastInboundAt: number | undefined;
  private lastOutboundAt: number | undefined;
  private readonly stopping = new AbortController();
  private polling: Promise<void> | undefined;
  private stopEndings: (() => void) | undefined;
  private stopPieces: (() => void) | undefined;
  private pruneTimer: unknown;
  private pruneTicks = 0;

  constructor(private readonly options: ChannelRunnerOptions) {
    const { name, store, adapter, host, clock, log, access } = options;
    this.inbox = new ChannelInbox({
      name,
      store,
      access,
      adapter,
      host,
      clock,
      log,
      ...(options.newCode === undefined ? {} : { newCode: options.newCode }),
    });
    this.outbox = new ChannelOutbox({
      name,
      store,
      adapter,
      host,
      clock,
      log,
      onCall: (error) => (error === undefined ? this.succeeded() : this.failed(error)),
      onSent: () => (this.lastOutboundAt = clock.now()),
    });
  }

  /** The channel's name. */
  get name(): string {
    return this.options.name;
  }

  /** Starts following turn endings, resumes the outbox, and starts polling. */
  async start(): Promise<void> {
    const { host, name } = this.options;
    this.stopEndings = host.onEnding((ending) => void this.outbox.take(ending));
    host.metrics?.channelUp(name, false);
    this.stopPieces = host.onReplyPiece?.((turnId, piece) => this.outbox.preview(turnId, piece));
    await this.outbox.recover();
    host.metrics?.channelPending(name, this.outbox.pending());
    this.polling = this.poll();
    this.prune();
  }

  /** Stops polling and the outbox; what is in flight finishes and is written. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.options.clock.clearTimeout(this.pruneTimer);
    this.stopEndings?.();
    this.stopPieces?.();
    await this.polling;
    await this.options.adapter.close?.();
    await this.outbox.stop();
  }

  /** `channels.list`'s entry. */
  view(): ChannelView {
    const iso = (ms: number | undefined) => (ms === undefined ? {} : { at: new Date(ms).toISOString() });
    return {
      name: this.options.name,
      type: this.options.type,
      state: linkStateName(this.link),
      ...(this.account === undefined ? {} : { account: this.account }),
      ...(this.link.state === 'failing' ? { error: this.link.error } : {}),
      ...(this.lastInboundAt === undefined ? {} : { lastInboundAt: iso(this.lastInboundAt).at }),
      ...(this.lastOutboundAt === undefined ? {} : { lastOutboundAt: iso(this.lastOutboundAt).at }),
      pending: this.outbox.pending(),
    };
  }

  private async poll(): Promise<void> {
    const { adapter, store, clock, log, name } = this.options;
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      try {
        if (!this.connected) {
          const account = await adapter.connect(signal);
          this.account = account.display;
          this.connected = true;
          this.options.host.events.emit('channel.connected', { channel: name, account: account.display });
          this.succeeded();
        }
        const updates = await adapter.receive(store.cursor(), signal);
        this.succeeded();
        if (updates.length === 0) continue;
        const chats = await this.inbox.take(updates);
        if (chats === null) return;
        if (updates.some((update) => update.message !== undefined)) this.lastInboundAt = clock.now();
        for (const chatId of chats) this.outbox.kick(chatId);
      } catch (err) {
        if (signal.aborted) return;
        const failure =
          err instanceof ChannelCallError ? err : new ChannelCallError('unreachable', String((err as Error).message));
        // A refused token may be a new bot behind the same variable: learn who it is again once it works.
        if (failure.kind === 'unauthorized') this.connected = false;
        log.warn({ channel: name, error: failure.message }, 'channel call failed');
        this.failed(failure);
        try {
          await delay(clock, retryDelayMs(this.link), signal);
        } catch {
          return;
        }
      }
    }
  }

  // Hourly, on the agent's clock: expired pairings and stale refusals (in memory) go; old inbox records (read from
  // disk) once a day, from the first tick on, so an idle channel costs a beat nothing measurable.
  private prune(): void {
    const { store, clock, log, name } = this.options;
    const now = clock.now();
    const inboxBefore = this.pruneTicks++ % INBOX_PRUNE_EVERY_TICKS === 0 ? now - INBOX_KEEP_MS : undefined;
    store.prune(now, inboxBefore, now - PAIRING_TTL_MS).catch((err: unknown) => {
      log.warn({ channel: name, err: err instanceof Error ? err.message : String(err) }, 'channel prune failed');
    });
    if (!this.stopping.signal.aborted) this.pruneTimer = clock.setTimeout(() => this.prune(), PAIRING_TTL_MS);
  }

  private succeeded(): void {
    const { link, notice } = linkTransition(this.link, { type: 'succeeded' });
    if (this.link.state !== 'ok') this.options.host.metrics?.channelUp(this.options.name, true);
    this.link = link;
    if (notice === 'recovered') this.options.host.events.emit('channel.recovered', { channel: this.options.name });
  }

  private failed(error: ChannelCallError): void {
    const { link, notice } = linkTransition(this.link, { type: 'failed', error: error.message });
    this.link = link;
    this.options.host.metrics?.channelUp(this.options.name, false);
    if (notice === 'failing') {
      this.options.host.events.emit('channel.failing', { channel: this.options.name, error: error.message });
    }
  }
}
