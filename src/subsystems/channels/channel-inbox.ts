/**
 * A channel's inbox: takes one page of platform updates and makes each message what the sender policy says (a turn,
 * a pairing, a refusal, nothing), writing it all with the cursor past the page in one synced batch, so the platform is
 * told it was received (the next `receive` from that cursor) only once it is durable. A message admitted before (a
 * redelivery) finds its record and makes nothing.
 */
import type { PairingRecord, RefusalRecord } from '../../protocol/channel-records.schema.js';
import type { EventPayload, VigilEvent } from '../../protocol/events.schema.js';
import type { Clock } from '../../shared/clock.js';
import type { VigilLogger } from '../../shared/logger.js';
import type { VigilBatchOp } from '../store/vigil-db.js';
import type { ChannelAdapter, InboundMessage, InboundUpdate } from './channel-adapter.js';
import type { AdmittedTurn, ChannelHost } from './channel-host.js';
import type { ChannelStore } from './channel-store.js';
import { newPairingCode, PAIRING_TTL_MS, pairingReplyText } from './pairing-code.js';
import { decideAccess, untrustedGroupText, type AccessSettings } from './sender-policy.js';

/** What the inbox is built from. */
export interface ChannelInboxOptions {
  name: string;
  store: ChannelStore;
  access: AccessSettings;
  adapter: Pick<ChannelAdapter, 'notify'>;
  host: ChannelHost;
  clock: Clock;
  log: VigilLogger;
  /** A new pairing code (default: crypto). */
  newCode?: () => string;
}

type Refusal = EventPayload<'channel.refused'>;

/** The page's outcome before it is written. */
interface Page {
  turns: AdmittedTurn[];
  ops: VigilBatchOp[];
  pairings: Array<[string, PairingRecord]>;
  refusals: Array<[string, RefusalRecord]>;
  refused: Refusal[];
  notices: Array<{ chatId: string; text: string }>;
  seen: Set<string>;
}

/** Turns platform updates into turns, durably and once. */
export class ChannelInbox {
  private readonly newCode: () => string;

  constructor(private readonly options: ChannelInboxOptions) {
    this.newCode = options.newCode ?? (() => newPairingCode());
  }

  /**
   * Takes a page of updates (in the platform's order); resolves with the chats that got new turns once everything is
   * written, or null when the runtime is stopping (nothing written: the page comes again after the restart).
   */
  async take(updates: readonly InboundUpdate[]): Promise<string[] | null> {
    const last = updates.at(-1);
    if (last === undefined) return [];
    const { store, host, name } = this.options;
    const page: Page = { turns: [], ops: [], pairings: [], refusals: [], refused: [], notices: [], seen: new Set() };
    for (const update of updates) {
      if (update.message !== undefined) await this.sort(update.message, page);
    }
    const cursor = last.cursorAfter;
    const refusedEvents = page.refused.map((payload) => host.events.stamp('channel.refused', payload));
    const ops = [...page.ops, ...refusedEvents.map((event) => host.events.entryOp(event))];
    let written: boolean;
    try {
      if (page.turns.length > 0) {
        const replies = await host.admit(name, store, page.turns, cursor, ops);
        written = replies !== null;
        if (replies !== null) {
          store.committed({ cursor, replies });
          host.metrics?.channelMessages(name, 'in', replies.length);
          host.metrics?.channelPending(name, store.openReplies().length);
        }
      } else {
        await store.write([store.cursorOp(cursor), ...ops]);
        store.committed({ cursor });
        written = true;
      }
    } catch (err) {
      host.events.withdraw(...refusedEvents);
      throw err;
    }
    if (!written) {
      host.events.withdraw(...refusedEvents);
      return null;
    }
    store.committed({ pairings: page.pairings, refusals: page.refusals });
    this.publish(refusedEvents);
    await this.notify(page.notices);
    return [...new Set(page.turns.map((turn) => turn.message.chatId))];
  }

  private async sort(message: InboundMessage, page: Page): Promise<void> {
    const { store, access } = this.options;
    const key = `${message.chatId}!${message.messageId}`;
    if (page.seen.has(key) || (await store.admitted(message.chatId, message.messageId))) return;
    page.seen.add(key);
    const decision = decideAccess(message, access, store.approval(message.senderId) !== undefined);
    switch (decision.kind) {
      case 'admit':
        page.turns.push({
          message,
          text: decision.untrusted ? untrustedGroupText(message) : message.text,
          scope: decision.scope,
        });
        return;
      case 'pair':
        this.pair(message, page);
        this.refuse(message, 'pairing', page);
        return;
      case 'refuse':
        this.refuse(message, decision.reason, page);
        return;
      case 'ignore':
        return;
    }
  }

  // A stranger's code: kept for its hour; a reply holding it at most once an hour, written before it is sent.
  private pair(message: InboundMessage, page: Page): void {
    const { store, clock } = this.options;
    const now = clock.now();
    const known = page.pairings.find(([id]) => id === message.senderId)?.[1] ?? store.pairing(message.senderId);
    if (known !== undefined && known.expiresAt > now && now - known.repliedAt < PAIRING_TTL_MS) return;
    const live = known !== undefined && known.expiresAt > now;
    const pairing: PairingRecord = {
      code: live ? known.code : this.newCode(),
      ...(message.senderName === undefined ? {} : { name: message.senderName }),
      chatId: message.chatId,
      expiresAt: live ? known.expiresAt : now + PAIRING_TTL_MS,
      repliedAt: now,
    };
    page.pairings.push([message.senderId, pairing]);
    page.ops.push(store.pairingOp(message.senderId, pairing));
    page.notices.push({ chatId: message.chatId, text: pairingReplyText(pairing.code) });
  }

  // Reported at most once an hour per sender, so a stranger's flood is one event an hour.
  private refuse(message: InboundMessage, reason: Refusal['reason'], page: Page): void {
    const { store, clock, name } = this.options;
    const now = clock.now();
    const last = page.refusals.find(([id]) => id === message.senderId)?.[1] ?? store.refusal(message.senderId);
    if (last !== undefined && now - last.at < PAIRING_TTL_MS) return;
    const refusal = { at: now };
    page.refusals.push([message.senderId, refusal]);
    page.ops.push(store.refusalOp(message.senderId, refusal));
    page.refused.push({ channel: name, chatId: message.chatId, senderId: message.senderId, reason });
  }

  private publish(events: readonly VigilEvent[]): void {
    for (const event of events) this.options.host.events.publish(event);
  }

  // At most once: the pairing is on disk with its reply's time, so a failed send is not tried again within the hour.
  private async notify(notices: Page['notices']): Promise<void> {
    for (const notice of notices) {
      try {
        await this.options.adapter.notify(notice.chatId, notice.text);
      } catch (err) {
        this.options.log.warn(
          { channel: this.options.name, err: err instanceof Error ? err.message : String(err) },
          'pairing reply not sent',
        );
      }
    }
  }
}
