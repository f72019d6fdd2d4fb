/** The conversation log: durable appends in seq order, reads by range, archives that move and never delete, seqs never reused. */
import { MemoryLevel } from 'memory-level';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConversationLog } from '../../../src/subsystems/conversation/conversation-log.js';
import type { NewConversationMessage } from '../../../src/protocol/conversation.schema.js';
import type { VigilDb } from '../../../src/subsystems/store/vigil-db.js';

const AT = Date.parse('2026-01-01T00:00:00Z');

function message(i: number): NewConversationMessage {
  return i % 2 === 1
    ? { turnId: `t-${i}`, role: 'user', text: `question ${i}`, from: 'cli', at: AT + i }
    : { turnId: `t-${i - 1}`, role: 'assistant', text: `answer ${i}`, at: AT + i };
}

describe('ConversationLog', () => {
  let db: VigilDb;
  let log: ConversationLog;

  beforeEach(async () => {
    db = new MemoryLevel<string, string>();
    log = new ConversationLog(db);
    await log.open();
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    await db.close();
  });

  async function appendMany(from: number, to: number): Promise<void> {
    for (let i = from; i <= to; i += 1) await log.append(message(i));
  }

  async function reopen(): Promise<ConversationLog> {
    await db.close();
    await db.open();
    const next = new ConversationLog(db);
    await next.open();
    return next;
  }

  it('starts empty with watermark 0', async () => {
    expect(log.watermark()).toBe(0);
    expect(await log.count()).toBe(0);
    expect(await log.readAfter(0)).toEqual([]);
  });

  it('numbers appended messages from 1 and writes each with one sync batch', async () => {
    const batch = vi.spyOn(db, 'batch');
    const stored = await log.append(message(1));
    expect(stored).toEqual({ seq: 1, ...message(1) });
    expect(batch).toHaveBeenCalledTimes(1);
    expect((batch.mock.calls[0] as unknown[])[1]).toMatchObject({ sync: true });
    expect(log.watermark()).toBe(1);
  });

  it('keeps the watermark below a held message until it is released, also while later ones are written', async () => {
    await log.append(message(1));
    const held = await log.append(message(2), [], { hold: true });
    await log.append(message(3));
    expect(log.watermark()).toBe(1);
    log.release(held.seq);
    expect(log.watermark()).toBe(3);
  });

  it('reads in numeric seq order past 9 and 99', async () => {
    await appendMany(1, 120);
    const all = await log.readAfter(0);
    expect(all.map((m) => m.seq)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(all[9]).toEqual({ seq: 10, ...message(10) });
  });

  it('reads after a seq, a range, and the last few', async () => {
    await appendMany(1, 12);
    expect((await log.readAfter(9)).map((m) => m.seq)).toEqual([10, 11, 12]);
    expect((await log.readAfter(2, 3)).map((m) => m.seq)).toEqual([3, 4, 5]);
    expect((await log.readRange(8, 11)).map((m) => m.seq)).toEqual([9, 10, 11]);
    expect(await log.readRange(5, 5)).toEqual([]);
    expect((await log.readLast(3)).map((m) => m.seq)).toEqual([10, 11, 12]);
    expect(await log.count()).toBe(12);
  });

  it('numbers concurrent appends in call order without gaps or repeats', async () => {
    const stored = await Promise.all([1, 2, 3, 4, 5].map((i) => log.append(message(i))));
    expect(stored.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5]);
    expect((await log.readAfter(0)).map((m) => m.text)).toEqual([1, 2, 3, 4, 5].map((i) => message(i).text));
  });

  it('continues the seq after a reopen', async () => {
    await appendMany(1, 3);
    log = await reopen();
    expect(log.watermark()).toBe(3);
    expect((await log.append(message(4))).seq).toBe(4);
  });

  it('moves entries after the watermark into the archive in one sync batch, deleting none', async () => {
    await appendMany(1, 10);
    const batch = vi.spyOn(db, 'batch');
    expect(await log.archiveAfter(4, 'ck-restore-1')).toBe(6);
    expect(batch).toHaveBeenCalledTimes(1);
    expect((batch.mock.calls[0] as unknown[])[1]).toMatchObject({ sync: true });
    expect(log.watermark()).toBe(4);
    expect((await log.readAfter(0)).map((m) => m.seq)).toEqual([1, 2, 3, 4]);
    const archived = await log.readArchive('ck-restore-1');
    expect(archived).toEqual([5, 6, 7, 8, 9, 10].map((i) => ({ seq: i, ...message(i) })));
    expect(await log.listArchives()).toEqual([
      { archiveId: 'ck-restore-1', afterSeq: 4, count: 6, firstSeq: 5, lastSeq: 10 },
    ]);
  });

  it('never reuses an archived seq, in the same process or after a reopen', async () => {
    await appendMany(1, 10);
    await log.archiveAfter(4, 'a1');
    expect((await log.append(message(11))).seq).toBe(11);
    await log.archiveAfter(4, 'a2');
    log = await reopen();
    expect(log.watermark()).toBe(4);
    expect((await log.append(message(12))).seq).toBe(12);
    expect((await log.readAfter(0)).map((m) => m.seq)).toEqual([1, 2, 3, 4, 12]);
    expect((await log.readArchive('a2')).map((m) => m.seq)).toEqual([11]);
  });

  it('archives everything at watermark 0 and keeps counting after a reopen', async () => {
    await appendMany(1, 3);
    expect(await log.archiveAfter(0, 'all')).toBe(3);
    expect(log.watermark()).toBe(0);
    log = await reopen();
    expect((await log.append(message(4))).seq).toBe(4);
  });

  it('archives nothing when no entry is past the watermark', async () => {
    await appendMany(1, 3);
    const batch = vi.spyOn(db, 'batch');
    expect(await log.archiveAfter(3, 'none')).toBe(0);
    expect(batch).not.toHaveBeenCalled();
    expect(await log.listArchives()).toEqual([]);
  });

  it('adds to an existing archive of the same id', async () => {
    await appendMany(1, 6);
    await log.archiveAfter(4, 'same');
    await appendMany(7, 8);
    await log.archiveAfter(2, 'same');
    expect((await log.readArchive('same')).map((m) => m.seq)).toEqual([3, 4, 5, 6, 7, 8]);
    expect(await log.listArchives()).toEqual([{ archiveId: 'same', afterSeq: 2, count: 6, firstSeq: 3, lastSeq: 8 }]);
  });

  it('keeps archives with prefix-sharing ids apart', async () => {
    await appendMany(1, 4);
    await log.archiveAfter(3, 'a');
    await log.archiveAfter(2, 'ab');
    expect((await log.readArchive('a')).map((m) => m.seq)).toEqual([4]);
    expect((await log.readArchive('ab')).map((m) => m.seq)).toEqual([3]);
  });

  it('prepares an archive with appended entries for another batch: nothing changes until it is written and committed', async () => {
    await appendMany(1, 6);
    const seen: number[] = [];
    log.onAppend((m) => seen.push(m.seq));
    const ending: NewConversationMessage = {
      turnId: 't-5',
      role: 'assistant',
      text: 'cancelled',
      at: AT + 7,
      unanswered: { code: 'TURN_CANCELLED', reason: 'cancelled' },
    };
    const prepared = await log.prepareArchive(4, 'ck-restore-2', [ending]);
    expect(prepared.moved.map((m) => m.seq)).toEqual([5, 6]);
    expect(prepared.appended).toEqual([{ seq: 7, ...ending }]);
    expect(prepared.watermarkAfter).toBe(7);
    // Not written yet: the log reads as before.
    expect((await log.readAfter(0)).map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(log.watermark()).toBe(6);
    await db.batch(prepared.ops as never, { sync: true } as never);
    prepared.committed();
    expect(seen).toEqual([7]);
    expect(log.watermark()).toBe(7);
    expect((await log.readAfter(0)).map((m) => m.seq)).toEqual([1, 2, 3, 4, 7]);
    expect((await log.readArchive('ck-restore-2')).map((m) => m.seq)).toEqual([5, 6]);
    log = await reopen();
    expect((await log.append(message(8))).seq).toBe(8);
  });

  it('burns the seqs of a prepared archive that is never written', async () => {
    await appendMany(1, 4);
    await log.prepareArchive(2, 'never', [message(5), message(6)]);
    expect((await log.append(message(7))).seq).toBe(7);
    expect((await log.readAfter(0)).map((m) => m.seq)).toEqual([1, 2, 3, 4, 7]);
    expect(await log.listArchives()).toEqual([]);
  });

  it('refuses an archive id with the key separator', async () => {
    await expect(log.archiveAfter(0, 'bad!id')).rejects.toMatchObject({ code: 'INTERNAL' });
    await expect(log.archiveAfter(0, '')).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('refuses appends before open and messages outside the schema', async () => {
    const unopened = new ConversationLog(db);
    await expect(unopened.append(message(1))).rejects.toMatchObject({ code: 'INTERNAL' });
    await expect(
      log.append({ ...message(1), role: 'system' } as unknown as NewConversationMessage),
    ).rejects.toMatchObject({
      code: 'INTERNAL',
    });
  });

  it('reports reads on a closed store as RUNTIME_STOPPED', async () => {
    await db.close();
    await expect(log.readAfter(0)).rejects.toMatchObject({ code: 'RUNTIME_STOPPED' });
    await db.open();
  });
});
