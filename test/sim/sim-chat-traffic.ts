/**
 * What people, the operator and the world do on a seed's chat platform, at seeded moments on the world's clock (while
 * the runtime is up or down, as people write whenever they like): the allowed senders write direct messages (some in
 * bursts), strangers write, people write in the group (naming the bot, replying to it, or neither) and in a group the
 * agent is not in; the platform delivers a message twice or an update with no message; the operator approves a
 * waiting stranger's pairing code or revokes one; a person deletes a placeholder or blocks the bot for a while; the
 * platform becomes unreachable for a while. All of it stops when the drain begins.
 */
import { describeError, isVigilError } from '../../src/errors.js';
import { SIM_CHANNEL } from './sim-chat-scenario.js';
import { SHOWN_PLACEHOLDER, type SimChatPlatform } from './sim-chat-platform.js';
import type { SimChatMessage } from './sim-chat-world.js';
import type { Incarnation } from './sim-incarnation.js';
import { words } from './sim-model.js';
import type { SimRandom } from './sim-random.js';
import type { SimWorldClock } from './sim-clock.js';

/** What the traffic needs of the run. */
export interface TrafficHost {
  world: SimWorldClock;
  /** The incarnation that is up, if any. */
  current(): Incarnation | null;
  /** Records one operator action or world fault, and returns the record its outcome is written into. */
  note(incarnation: number, action: string, outcome: string): { outcome: string };
}

type TrafficKind =
  | 'direct'
  | 'burst'
  | 'stranger'
  | 'group'
  | 'otherGroup'
  | 'service'
  | 'redeliver'
  | 'approve'
  | 'revoke'
  | 'delete'
  | 'block'
  | 'outage';

/** The people and the world around the platform. */
export class SimChatTraffic {
  private timer: unknown;
  private stopped = false;

  constructor(
    private readonly platform: SimChatPlatform,
    private readonly host: TrafficHost,
    private readonly rng: SimRandom,
  ) {
    this.schedule();
  }

  /** The drain begins: nobody writes any more. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.host.world.clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    const mean = this.platform.channel.meanGapMs;
    const gap = Math.max(50, Math.round(-Math.log(1 - this.rng.next()) * mean));
    this.timer = this.host.world.setTimeout(() => {
      this.timer = undefined;
      this.act();
      this.schedule();
    }, gap);
  }

  private act(): void {
    const { rng, platform } = this;
    const channel = platform.channel;
    const up = this.host.current();
    const alive = up?.alive === true;
    const faults = channel.faults.rateLimited > 0;
    const people = platform.chats.all().filter((m) => m.kind === 'person');
    const waiting = alive ? up.runtime.channels.pairings(SIM_CHANNEL).length : 0;
    const paired = alive ? up.runtime.channels.senders(SIM_CHANNEL).filter((s) => s.via === 'pairing').length : 0;
    const placeholders = this.botMessages().filter((m) => m.texts.at(-1) === SHOWN_PLACEHOLDER);
    // Only what can happen now is drawn: every draw does something.
    const kind = rng.weighted<TrafficKind>({
      direct: 30,
      burst: 6,
      stranger: 8,
      group: 10,
      otherGroup: 2,
      service: 2,
      redeliver: people.length > 0 ? 5 : 0,
      approve: waiting > 0 ? 8 : 0,
      revoke: paired > 0 ? 1 : 0,
      delete: channel.faults.deletes && placeholders.length > 0 ? 3 : 0,
      block: faults ? 1 : 0,
      outage: faults ? 2 : 0,
    });
    const known = [...channel.allowFrom, ...channel.operators];
    switch (kind) {
      case 'direct': {
        const sender = rng.pick(known);
        platform.personWrites(sender, sender, this.text(), { mentionsBot: false });
        return;
      }
      case 'burst': {
        const sender = rng.pick(known);
        for (let i = rng.int(2, 4); i > 0; i -= 1)
          platform.personWrites(sender, sender, this.text(), { mentionsBot: false });
        return;
      }
      case 'stranger': {
        const sender = rng.pick(channel.strangers);
        platform.personWrites(sender, sender, this.text(), { mentionsBot: false });
        return;
      }
      case 'group':
      case 'otherGroup':
        return this.groupMessage(kind === 'group' ? channel.group : channel.otherGroup);
      case 'service':
        platform.serviceUpdate();
        return;
      case 'redeliver':
        platform.redeliver(rng.pick(people));
        return;
      case 'approve':
        return this.approve(up!);
      case 'revoke':
        return this.revoke(up!);
      case 'delete': {
        const message = rng.pick(placeholders);
        platform.delete(message);
        this.note(`chat: a person deletes placeholder ${message.chatId}/${message.messageId}`, 'deleted');
        return;
      }
      case 'block': {
        const chatId = rng.pick(known);
        const ms = rng.int(2_000, 30_000);
        platform.block(chatId, ms);
        this.note(`chat: ${chatId} blocks the bot`, `for ${ms} ms`);
        return;
      }
      case 'outage': {
        const ms = rng.int(2_000, 60_000);
        platform.outage(ms);
        this.note('chat: the platform is unreachable', `for ${ms} ms`);
        return;
      }
    }
  }

  private groupMessage(chatId: string): void {
    const { rng, platform } = this;
    const sender = rng.pick([...platform.channel.allowFrom, ...platform.channel.strangers]);
    const bots = (platform.chats.chats.get(chatId) ?? []).filter(
      (m) => m.kind === 'reply' && m.deletedAt === undefined,
    );
    const replyTo = bots.length > 0 && rng.chance(0.25) ? rng.pick(bots) : undefined;
    const mentionsBot = replyTo === undefined && rng.chance(0.6);
    platform.personWrites(sender, chatId, this.text(), { mentionsBot, ...(replyTo === undefined ? {} : { replyTo }) });
  }

  // The operator approves the code of a stranger waiting now (as they would after hearing it from them).
  private approve(incarnation: Incarnation): void {
    const waiting = incarnation.runtime.channels.pairings(SIM_CHANNEL);
    const { code, senderId } = this.rng.pick(waiting);
    this.fire(incarnation, `channels.approve ${code} (${senderId})`, () =>
      incarnation.runtime.channels.approve(SIM_CHANNEL, code),
    );
  }

  private revoke(incarnation: Incarnation): void {
    const paired = incarnation.runtime.channels.senders(SIM_CHANNEL).filter((s) => s.via === 'pairing');
    const { senderId } = this.rng.pick(paired);
    this.fire(incarnation, `channels.revoke ${senderId}`, () =>
      incarnation.runtime.channels.revoke(SIM_CHANNEL, senderId),
    );
  }

  private botMessages(): SimChatMessage[] {
    return this.platform.chats.all().filter((m) => m.kind === 'reply' && m.deletedAt === undefined);
  }

  private text(): string {
    return words(this.rng, this.rng.int(2, 25));
  }

  private fire(incarnation: Incarnation, action: string, work: () => Promise<unknown>): void {
    const record = this.host.note(incarnation.number, action, 'in flight');
    work().then(
      () => (record.outcome = 'ok'),
      (err: unknown) => (record.outcome = isVigilError(err) ? err.code : describeError(err)),
    );
  }

  private note(action: string, outcome: string): void {
    this.host.note(this.host.current()?.number ?? 0, action, outcome);
  }
}
