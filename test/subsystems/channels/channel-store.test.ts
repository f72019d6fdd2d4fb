import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { ChannelStore } from '../../../src/subsystems/channels/channel-store.js';
import { newReply } from '../../../src/subsystems/channels/reply.machine.js';
import type { VigilDb } from '../../../src/subsystems/store/vigil-db.js';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-03-01T10:00:00Z');

describe('ChannelStore', () => {
  it('keeps one channel’s records apart from another’s, and reads them back after a reopen', async () => {
    const db: VigilDb = new MemoryLevel();
    const tg = await ChannelStore.open(db, 'tg');
    const other = await ChannelStore.open(db, 'tg-2');
    const reply = newReply('t-1', '101', '5', 1, NOW);
    await tg.write([
      ...tg.admissionOps('101', '5', { turnId: 't-1', senderId: '101', at: NOW }, reply),
      tg.cursorOp('42'),
    ]);
    await tg.write(tg.approvalOps('202', { since: NOW }));
    const reopened = await ChannelStore.open(db, 'tg');
    expect(reopened.cursor()).toBe('42');
    expect(reopened.openReplies()).toEqual([reply]);
    expect(reopened.approval('202')).toEqual({ since: NOW });
    expect(await reopened.admitted('101', '5')).toBe(true);
    expect(await reopened.admitted('101', '6')).toBe(false);
    const otherReopened = await ChannelStore.open(db, 'tg-2');
    expect(otherReopened.cursor()).toBeUndefined();
    expect(await other.admitted('101', '5')).toBe(false);
  });

  it('prunes old inbox records, expired pairings and stale refusals, and nothing else', async () => {
    const db: VigilDb = new MemoryLevel();
    const store = await ChannelStore.open(db, 'tg');
    const old = newReply('t-old', '101', '1', 1, NOW - 10 * 24 * HOUR);
    await store.write([
      ...store.admissionOps('101', '1', { turnId: 't-old', senderId: '101', at: NOW - 10 * 24 * HOUR }, old),
      ...store.admissionOps(
        '101',
        '2',
        { turnId: 't-new', senderId: '101', at: NOW },
        newReply('t-new', '101', '2', 2, NOW),
      ),
      store.pairingOp('7', { code: 'ABCDEFGH', chatId: '7', expiresAt: NOW - 1, repliedAt: NOW - HOUR - 1 }),
      store.pairingOp('8', { code: 'ABCDEFGJ', chatId: '8', expiresAt: NOW + HOUR, repliedAt: NOW }),
      store.refusalOp('9', { at: NOW - 2 * HOUR }),
    ]);
    const reopened = await ChannelStore.open(db, 'tg');
    expect(await reopened.prune(NOW, NOW - 7 * 24 * HOUR, NOW - HOUR)).toBe(3);
    expect(await reopened.admitted('101', '1')).toBe(false);
    expect(await reopened.admitted('101', '2')).toBe(true);
    expect(reopened.pairing('7')).toBeUndefined();
    expect(reopened.pairing('8')).toBeDefined();
    expect(reopened.refusal('9')).toBeUndefined();
    // A reply still open is never pruned with its inbox record: it is the outbox's until it is over.
    expect(reopened.reply('t-old')).toBeDefined();
    expect(await reopened.prune(NOW, NOW - 7 * 24 * HOUR, NOW - HOUR)).toBe(0);
  });
});
