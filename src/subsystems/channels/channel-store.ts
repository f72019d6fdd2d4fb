/**
 * One channel's durable state in the store (sealed with the rest under VIGIL_CHECKPOINT_KEY): the platform cursor, an
 * inbox record per admitted message, a reply record per turn not yet answered in its chat, approved senders, pending
 * pairings and the last refusal per sender. Keys hold the channel's name and platform ids, never user text. Every
 * write is one synced batch; memory follows once it is on disk.
 */
import {
  ApprovedSenderSchema,
  CursorRecordSchema,
  InboxRecordSchema,
  PairingRecordSchema,
  RefusalRecordSchema,
  ReplyRecordSchema,
  type ApprovedSender,
  type InboxRecord,
  type PairingRecord,
  type RefusalRecord,
  type ReplyRecord,
} from '../../protocol/channel-records.schema.js';
import { SUBLEVELS, toStoreError, writeSyncBatch, type VigilBatchOp, type VigilDb } from '../store/vigil-db.js';
import { isOver } from './reply.machine.js';

type Keyed<T> = Map<string, T>;

/** The store of one channel. */
export class ChannelStore {
  private readonly records;
  private cursorValue: string | undefined;
  private readonly replies: Keyed<ReplyRecord> = new Map();
  private readonly approved: Keyed<ApprovedSender> = new Map();
  private readonly pairings: Keyed<PairingRecord> = new Map();
  private readonly refusals: Keyed<RefusalRecord> = new Map();

  private constructor(
    private readonly db: VigilDb,
    private readonly name: string,
  ) {
    this.records = db.sublevel<string, unknown>(SUBLEVELS.channels, { valueEncoding: 'json' });
  }

  /** Opens channel `name`'s records (a record that does not parse is passed over). */
  static async open(db: VigilDb, name: string): Promise<ChannelStore> {
    const store = new ChannelStore(db, name);
    await store.load();
    return store;
  }

  /** Where the platform's stream stands (undefined: never received). */
  cursor(): string | undefined {
    return this.cursorValue;
  }

  /** The replies not yet over, in the order their messages were admitted. */
  openReplies(): ReplyRecord[] {
    return [...this.replies.values()].sort((a, b) => a.userSeq - b.userSeq);
  }

  /** The open reply of `turnId`. */
  reply(turnId: string): ReplyRecord | undefined {
    return this.replies.get(turnId);
  }

  /** The sender's approval by pairing, if any. */
  approval(senderId: string): ApprovedSender | undefined {
    return this.approved.get(senderId);
  }

  /** Every sender approved by pairing. */
  approvals(): Array<[string, ApprovedSender]> {
    return [...this.approved.entries()];
  }

  /** The sender's pending pairing, if any. */
  pairing(senderId: string): PairingRecord | undefined {
    return this.pairings.get(senderId);
  }

  /** Every pending pairing. */
  allPairings(): Array<[string, PairingRecord]> {
    return [...this.pairings.entries()];
  }

  /** When the sender was last reported refused. */
  refusal(senderId: string): RefusalRecord | undefined {
    return this.refusals.get(senderId);
  }

  /** Whether message `messageId` of `chatId` was admitted before (a redelivery). */
  async admitted(chatId: string, messageId: string): Promise<boolean> {
    try {
      return (await this.records.get(this.key('i', chatId, messageId))) !== undefined;
    } catch (err) {
      throw toStoreError(err, `read channel ${this.name}'s inbox`);
    }
  }

  /** The batch operations that admit a message: its inbox record and its reply record. */
  admissionOps(chatId: string, messageId: string, inbox: InboxRecord, reply: ReplyRecord): VigilBatchOp[] {
    return [this.put(this.key('i', chatId, messageId), InboxRecordSchema.parse(inbox)), this.replyOp(reply)];
  }

  /** The operation that moves the cursor. */
  cursorOp(cursor: string): VigilBatchOp {
    return this.put(this.key('c'), CursorRecordSchema.parse({ cursor }));
  }

  /** The operation that stores `reply` (or deletes it, once over). */
  replyOp(reply: ReplyRecord): VigilBatchOp {
    const key = this.key('r', reply.turnId);
    return isOver(reply) ? this.del(key) : this.put(key, ReplyRecordSchema.parse(reply));
  }

  /** The operation that approves a sender, and the one that forgets its pairing. */
  approvalOps(senderId: string, sender: ApprovedSender): VigilBatchOp[] {
    return [this.put(this.key('s', senderId), ApprovedSenderSchema.parse(sender)), this.del(this.key('p', senderId))];
  }

  /** The operation that forgets an approval. */
  revocationOp(senderId: string): VigilBatchOp {
    return this.del(this.key('s', senderId));
  }

  /** The operation that stores a pairing. */
  pairingOp(senderId: string, pairing: PairingRecord): VigilBatchOp {
    return this.put(this.key('p', senderId), PairingRecordSchema.parse(pairing));
  }

  /** The operation that stores when a sender was last reported refused. */
  refusalOp(senderId: string, refusal: RefusalRecord): VigilBatchOp {
    return this.put(this.key('x', senderId), RefusalRecordSchema.parse(refusal));
  }

  /** Writes `ops` in one synced batch. */
  async write(ops: VigilBatchOp[]): Promise<void> {
    try {
      await writeSyncBatch(this.db, ops);
    } catch (err) {
      throw toStoreError(err, `write channel ${this.name}`);
    }
  }

  /** Memory after a write that landed: what the batch changed, as the store now holds it. */
  committed(change: Committed): void {
    if (change.cursor !== undefined) this.cursorValue = change.cursor;
    for (const reply of change.replies ?? []) {
      if (isOver(reply)) this.replies.delete(reply.turnId);
      else this.replies.set(reply.turnId, reply);
    }
    for (const [senderId, sender] of change.approved ?? []) {
      this.approved.set(senderId, sender);
      this.pairings.delete(senderId);
    }
    for (const senderId of change.revoked ?? []) this.approved.delete(senderId);
    for (const [senderId, pairing] of change.pairings ?? []) this.pairings.set(senderId, pairing);
    for (const [senderId, refusal] of change.refusals ?? []) this.refusals.set(senderId, refusal);
  }

  /**
   * Forgets what no longer serves: inbox records admitted before `inboxBefore` when given (a platform redelivers only
   * what it was never told was received, and for a day at most), expired pairings and refusals older than
   * `refusalsBefore`.
   * Resolves with how many records went.
   */
  async prune(now: number, inboxBefore: number | undefined, refusalsBefore: number): Promise<number> {
    const ops: VigilBatchOp[] = [];
    // The inbox is read from disk (it is not held in memory): only when asked, the rest is memory.
    if (inboxBefore !== undefined) ops.push(...(await this.staleInbox(inboxBefore)).map((key) => this.del(key)));
    const pairings = [...this.pairings].filter(([, pairing]) => pairing.expiresAt <= now).map(([id]) => id);
    const refusals = [...this.refusals].filter(([, refusal]) => refusal.at < refusalsBefore).map(([id]) => id);
    ops.push(
      ...pairings.map((id) => this.del(this.key('p', id))),
      ...refusals.map((id) => this.del(this.key('x', id))),
    );
    if (ops.length === 0) return 0;
    await this.write(ops);
    for (const id of pairings) this.pairings.delete(id);
    for (const id of refusals) this.refusals.delete(id);
    return ops.length;
  }

  private async staleInbox(before: number): Promise<string[]> {
    try {
      const entries = await this.records.iterator({ gt: this.key('i', ''), lt: `${this.key('i')}"` }).all();
      return entries.flatMap(([key, value]) => {
        const record = InboxRecordSchema.safeParse(value);
        return !record.success || record.data.at < before ? [key] : [];
      });
    } catch (err) {
      throw toStoreError(err, `read channel ${this.name}'s inbox`);
    }
  }

  private async load(): Promise<void> {
    const prefix = `${this.name}!`;
    let entries: Array<[string, unknown]>;
    try {
      entries = await this.records.iterator({ gt: prefix, lt: `${this.name}"` }).all();
    } catch (err) {
      throw toStoreError(err, `read channel ${this.name}`);
    }
    for (const [key, value] of entries) {
      const [kind, ...rest] = key.slice(prefix.length).split('!');
      const id = rest.join('!');
      if (kind === 'c') {
        const cursor = CursorRecordSchema.safeParse(value);
        if (cursor.success) this.cursorValue = cursor.data.cursor;
      } else if (kind === 'r') this.keep(this.replies, id, ReplyRecordSchema.safeParse(value));
      else if (kind === 's') this.keep(this.approved, id, ApprovedSenderSchema.safeParse(value));
      else if (kind === 'p') this.keep(this.pairings, id, PairingRecordSchema.safeParse(value));
      else if (kind === 'x') this.keep(this.refusals, id, RefusalRecordSchema.safeParse(value));
    }
  }

  private keep<T>(into: Keyed<T>, id: string, parsed: { success: true; data: T } | { success: false }): void {
    if (parsed.success) into.set(id, parsed.data);
  }

  // `NAME!kind!id…`: '!' sorts before every character a name or an id holds, so one channel's keys are one range.
  private key(kind: string, ...ids: string[]): string {
    return [this.name, kind, ...ids].join('!');
  }

  private put(key: string, value: unknown): VigilBatchOp {
    return { type: 'put', sublevel: this.records, key, value };
  }

  private del(key: string): VigilBatchOp {
    return { type: 'del', sublevel: this.records, key };
  }
}

/** What a landed write changed, for `ChannelStore.committed`. */
export interface Committed {
  cursor?: string;
  replies?: readonly ReplyRecord[];
  approved?: ReadonlyArray<[string, ApprovedSender]>;
  revoked?: readonly string[];
  pairings?: ReadonlyArray<[string, PairingRecord]>;
  refusals?: ReadonlyArray<[string, RefusalRecord]>;
}
