/**
 * The simulated chat platform (a Telegram-like Bot API), the outside world of a seed's channel: it survives every
 * runtime crash and answers in simulated time through one `ChannelAdapter` per incarnation, injected with
 * `RuntimeOptions.channels.createAdapter`. Receiving from an offset confirms every update before it, as getUpdates
 * does; at each confirmation the platform looks at the disk as it was when the request left the runtime (behind the
 * runtime's back) for each newly confirmed message's record. Its calls take time, answer 429 with a retry-after,
 * fail while the platform is unreachable, are refused for good in a chat whose person blocked the bot, and lose
 * answers: a placeholder's send may take effect while its answer is lost, or while the runtime is killed before the
 * answer arrives (`kill -9` between the request and the write), so the runtime never learns the id of a message that
 * is in the chat. What it keeps is `sim-chat-world.ts`.
 */
import {
  ChannelCallError,
  type ChannelAdapter,
  type InboundUpdate,
} from '../../src/subsystems/channels/channel-adapter.js';
import { SIM_BOT_USERNAME, verdictOf, type PolicyVerdict, type SimChannelScenario } from './sim-chat-scenario.js';
import { never, SimChatWire } from './sim-chat-wire.js';
import {
  SimChats,
  type SimChatMessage,
  type SimChatViolation,
  type SimChatWorld,
  type SimUpdate,
} from './sim-chat-world.js';
import type { SimWorldClock } from './sim-clock.js';
import type { SimRandom } from './sim-random.js';

/** What a placeholder shows until its text is known (the channel core's PLACEHOLDER_TEXT, as people see it). */
export const SHOWN_PLACEHOLDER = '…';
/** The most updates one receive answers (getUpdates' default limit). */
const PAGE = 100;

/** What the platform needs from the run. */
export interface SimChatHooks {
  /** Kills incarnation `incarnation` now if the run may still crash it; true when it did. */
  crash(incarnation: number, how: string): boolean;
  /**
   * The channel's records on disk, keys without the channel's prefix (`i!CHAT!MSG`, `x!SENDER`, `r!TURN`…), read from
   * a snapshot taken at the call.
   */
  records(): Promise<Map<string, unknown>>;
}

const INVARIANT_DURABLE = 'an update is confirmed only once its message is durable';
const INVARIANT_RETRY_AFTER = "a 429's retry_after is honoured";
const INVARIANT_LIMIT = 'no message over the platform limit';

/** The platform: its chats and update queue, and an adapter per incarnation. */
export class SimChatPlatform {
  readonly chats: SimChats;
  readonly violations: SimChatViolation[] = [];
  readonly calls: Record<string, number> = {};
  private readonly wire: SimChatWire;
  /** Every update below this offset is confirmed (forgotten by the platform). */
  private confirmed = 1;
  private readonly waiters = new Set<() => void>();
  /** Per incarnation and chat, until when a 429 asked it to wait. */
  private readonly retryUntil = new Map<string, number>();
  private readonly blockedUntil = new Map<string, number>();
  private downUntil = 0;
  private calm = false;

  constructor(
    private readonly world: SimWorldClock,
    private readonly rng: SimRandom,
    readonly channel: SimChannelScenario,
    private readonly hooks: SimChatHooks,
  ) {
    this.chats = new SimChats(world);
    this.wire = new SimChatWire(world, rng);
  }

  /** The runtime's adapter for incarnation `incarnation`. */
  adapterFor(incarnation: number): ChannelAdapter {
    return {
      maxMessageLength: this.channel.maxMessageLength,
      connect: async (signal) => {
        await this.arrive(incarnation, 'connect', signal);
        await this.wire.leg(incarnation, signal);
        return { display: `@${SIM_BOT_USERNAME}` };
      },
      receive: (cursor, signal) => this.receive(incarnation, cursor, signal),
      place: (chatId, text, replyTo) => this.place(incarnation, chatId, text, replyTo),
      edit: (chatId, messageId, markdown) => this.edit(incarnation, chatId, messageId, markdown),
      notify: async (chatId, text) => {
        await this.arrive(incarnation, 'notify');
        this.chats.add({ chatId, from: 'bot', kind: 'notice', text });
        this.count('notify ok');
        await this.wire.leg(incarnation);
      },
    };
  }

  /** A pairing code (the runtime's `newCode`): from the seed, so a run replays exactly. */
  newCode(): string {
    const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
    return Array.from({ length: 8 }, () => alphabet[this.rng.int(0, alphabet.length - 1)]).join('');
  }

  /** The drain: no faults from now on. */
  quiet(): void {
    this.calm = true;
    this.downUntil = 0;
    this.blockedUntil.clear();
  }

  /** Incarnation `incarnation` died: nothing it asked is answered any more. */
  cut(incarnation: number): void {
    this.wire.cut(incarnation);
  }

  /** After the dead incarnation's last write landed: the placeholders whose id it never wrote. */
  async buried(incarnation: number): Promise<void> {
    if (!this.chats.unedited().some((m) => m.placedBy === incarnation)) return;
    this.chats.markUnrecorded(incarnation, await this.hooks.records());
  }

  /** A person writes into a chat: a new message, and an update carrying it. */
  personWrites(
    senderId: string,
    chatId: string,
    text: string,
    addressing: { mentionsBot: boolean; replyTo?: SimChatMessage },
  ): SimChatMessage {
    const { replyTo } = addressing;
    const message = this.chats.add({
      chatId,
      from: senderId,
      kind: 'person',
      text: addressing.mentionsBot ? `@${SIM_BOT_USERNAME} ${text}` : text,
      mentionsBot: addressing.mentionsBot,
      ...(replyTo === undefined ? {} : { replyTo: replyTo.messageId }),
      repliesToBot: replyTo?.from === 'bot',
    });
    this.enqueue(message);
    return message;
  }

  /** An update that carries no message (a reaction, someone joining): only the offset moves. */
  serviceUpdate(): void {
    this.enqueue(undefined);
  }

  /** A message delivered again as a new update (as Slack redelivers, or one arriving as two event kinds). */
  redeliver(message: SimChatMessage): void {
    this.enqueue(message);
  }

  /** A person deletes a bot message. */
  delete(message: SimChatMessage): void {
    message.deletedAt = this.world.now();
  }

  /** The person of a direct chat blocks the bot for `ms`: sends and edits there are refused. */
  block(chatId: string, ms: number): void {
    if (!this.calm) this.blockedUntil.set(chatId, this.world.now() + ms);
  }

  /** The platform is unreachable for `ms`. */
  outage(ms: number): void {
    if (!this.calm) this.downUntil = Math.max(this.downUntil, this.world.now() + ms);
  }

  /** Updates no receive has confirmed yet. */
  unconfirmed(): number {
    return this.pending().length;
  }

  /** What the checker reads. */
  record(): SimChatWorld {
    const { chats, updates } = this.chats;
    return { chats: Object.fromEntries(chats), updates, violations: this.violations, calls: this.calls };
  }

  private async receive(
    incarnation: number,
    cursor: string | undefined,
    signal: AbortSignal,
  ): Promise<InboundUpdate[]> {
    // The disk as it is when the request leaves the process: a crash from then on cannot take back the confirmation.
    const offset = cursor === undefined ? undefined : Number(cursor);
    const sentAt = this.world.now();
    const disk = offset !== undefined && offset > this.confirmed ? this.hooks.records() : undefined;
    await this.arrive(incarnation, 'receive', signal);
    if (disk !== undefined && offset! > this.confirmed) await this.confirm(incarnation, offset!, sentAt, disk);
    await this.poll(incarnation, signal);
    const page = this.pending().slice(0, PAGE);
    for (const update of page) update.deliveries += 1;
    if (page.length > 0 && this.fault(this.channel.faults.lostAnswer)) {
      this.count('receive lost');
      await this.wire.leg(incarnation, signal);
      throw new ChannelCallError('unreachable', 'getUpdates: the answer was lost');
    }
    this.count(page.length > 0 ? 'receive updates' : 'receive empty');
    await this.wire.leg(incarnation, signal);
    return page.map((update) => this.chats.translate(update));
  }

  // Confirming happens as the request arrives: every update below `offset` is forgotten, so each must have been
  // durable when the request was sent.
  private async confirm(
    incarnation: number,
    offset: number,
    sentAt: number,
    disk: Promise<Map<string, unknown>>,
  ): Promise<void> {
    const newly = this.pending().filter((u) => u.updateId < offset);
    const now = this.world.now();
    this.confirmed = offset;
    for (const update of newly) update.confirmedAt = now;
    const records = await disk;
    for (const update of newly) {
      const message = this.chats.messageOf(update);
      if (message === undefined) continue;
      const missing = this.missingRecord(message, records);
      if (missing === null) continue;
      this.violations.push({
        invariant: INVARIANT_DURABLE,
        detail: `incarnation ${incarnation} asked for updates from offset ${offset} at ${iso(sentAt)}, confirming update ${update.updateId} (chat ${message.chatId} message ${message.messageId} from ${message.from}, ${this.verdict(message)}) while the disk held ${missing}`,
      });
    }
  }

  /** What the disk lacks for `message` to count as durable, or null. */
  private missingRecord(message: SimChatMessage, records: Map<string, unknown>): string | null {
    if (records.has(`i!${message.chatId}!${message.messageId}`)) return null;
    const verdict = this.verdict(message);
    if (verdict === 'admit') return 'no inbox record of it';
    if (verdict === 'ignore') return null;
    // A stranger's (or a refused) message leaves its sender's pairing or refusal record, written with the cursor.
    if (records.has(`x!${message.from}`) || records.has(`p!${message.from}`)) return null;
    return `no inbox record, and no pairing or refusal record of sender ${message.from}`;
  }

  private verdict(message: SimChatMessage): PolicyVerdict {
    return verdictOf(this.channel, { ...message, senderId: message.from });
  }

  // Waits for an update past the confirmed offset, or the long poll's end.
  private poll(incarnation: number, signal: AbortSignal): Promise<void> {
    if (this.pending().length > 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        this.waiters.delete(wake);
        this.wire.clear(incarnation, timer);
        signal.removeEventListener('abort', onAbort);
      };
      const wake = () => {
        done();
        if (!this.wire.isDead(incarnation)) resolve();
      };
      const onAbort = () => {
        done();
        reject(new ChannelCallError('unreachable', 'getUpdates: aborted'));
      };
      const timer = this.wire.after(incarnation, this.channel.pollTimeoutMs, wake);
      this.waiters.add(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private async place(incarnation: number, chatId: string, text: string, replyTo: string | undefined): Promise<string> {
    await this.arrive(incarnation, 'place');
    this.checkRetryAfter(incarnation, chatId, 'place');
    await this.refuseIfMust(incarnation, chatId, text, 'sendMessage');
    const message = this.chats.add({
      chatId,
      from: 'bot',
      kind: 'reply',
      text,
      ...(replyTo === undefined ? {} : { replyTo }),
    });
    message.placedBy = incarnation;
    // Until the answer reaches a live runtime, its id is cut off.
    message.answer = 'cut';
    const how = "killed while a placeholder's answer was on its way";
    if (this.fault(this.channel.faults.crashOnPlace) && this.hooks.crash(incarnation, how)) {
      this.count('place cut by a crash');
      return never();
    }
    if (this.fault(this.channel.faults.lostAnswer)) {
      message.answer = 'lost';
      this.count('place lost');
      await this.wire.leg(incarnation);
      throw new ChannelCallError('unreachable', 'sendMessage: the answer was lost');
    }
    await this.wire.leg(incarnation);
    message.answer = 'delivered';
    this.count('place ok');
    return message.messageId;
  }

  private async edit(incarnation: number, chatId: string, messageId: string, text: string): Promise<void> {
    await this.arrive(incarnation, 'edit');
    this.checkRetryAfter(incarnation, chatId, 'edit');
    const message = this.chats.find(chatId, messageId);
    if (message === undefined || message.from !== 'bot' || message.deletedAt !== undefined) {
      this.count('edit gone');
      await this.wire.leg(incarnation);
      throw new ChannelCallError('gone', 'editMessageText: 400 Bad Request: message to edit not found');
    }
    try {
      await this.refuseIfMust(incarnation, chatId, text, 'editMessageText');
    } catch (err) {
      if (err instanceof ChannelCallError && err.kind === 'refused') message.editRefused = true;
      throw err;
    }
    // The same text again is no change ("message is not modified", which the adapter takes as done).
    if (message.texts.at(-1) !== text) message.texts.push(text);
    if (this.fault(this.channel.faults.lostAnswer)) {
      this.count('edit lost');
      await this.wire.leg(incarnation);
      throw new ChannelCallError('unreachable', 'editMessageText: the answer was lost');
    }
    this.count('edit ok');
    await this.wire.leg(incarnation);
  }

  // A 429 (the chat must wait), a blocked chat, or a text over the limit: the call is refused, nothing shown.
  private async refuseIfMust(incarnation: number, chatId: string, text: string, method: string): Promise<void> {
    let failure: ChannelCallError | undefined;
    if (this.fault(this.channel.faults.rateLimited)) {
      const retryAfterMs = this.rng.int(1, 5) * 1_000;
      this.retryUntil.set(`${incarnation}|${chatId}`, this.world.now() + retryAfterMs);
      failure = new ChannelCallError('rate_limited', `${method}: 429 Too Many Requests`, retryAfterMs);
    } else if ((this.blockedUntil.get(chatId) ?? 0) > this.world.now()) {
      failure = new ChannelCallError('refused', `${method}: 403 Forbidden: bot was blocked by the user`);
    } else if (text.length > this.channel.maxMessageLength) {
      this.violations.push({
        invariant: INVARIANT_LIMIT,
        detail: `${method} into chat ${chatId} at ${iso(this.world.now())}: ${text.length} characters, over ${this.channel.maxMessageLength}`,
      });
      failure = new ChannelCallError('refused', `${method}: 400 Bad Request: message is too long`);
    }
    if (failure === undefined) return;
    this.count(`${method} ${failure.kind}`);
    await this.wire.leg(incarnation);
    throw failure;
  }

  private checkRetryAfter(incarnation: number, chatId: string, method: string): void {
    const until = this.retryUntil.get(`${incarnation}|${chatId}`);
    if (until === undefined || this.world.now() >= until) return;
    this.violations.push({
      invariant: INVARIANT_RETRY_AFTER,
      detail: `incarnation ${incarnation} called ${method} in chat ${chatId} at ${iso(this.world.now())}, ${until - this.world.now()} ms before a 429's retry_after passed`,
    });
  }

  // The request reaches the platform at once (its answer takes the time); while it is unreachable, the call fails
  // with no effect.
  private async arrive(incarnation: number, method: string, signal?: AbortSignal): Promise<void> {
    await this.wire.sent(incarnation, signal);
    if (this.world.now() >= this.downUntil) return;
    this.count(`${method} unreachable`);
    await this.wire.leg(incarnation, signal);
    throw new ChannelCallError('unreachable', `${method}: connect ETIMEDOUT`);
  }

  private enqueue(message: SimChatMessage | undefined): void {
    this.chats.enqueue(message);
    for (const wake of [...this.waiters]) wake();
  }

  private pending(): SimUpdate[] {
    return this.chats.updates.filter((u) => u.updateId >= this.confirmed);
  }

  private fault(p: number): boolean {
    return !this.calm && p > 0 && this.rng.chance(p);
  }

  private count(what: string): void {
    this.calls[what] = (this.calls[what] ?? 0) + 1;
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
