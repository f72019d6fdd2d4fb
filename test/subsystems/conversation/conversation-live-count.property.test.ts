/**
 * The conversation log's stored number of live entries (what lets retention read only the entries it deletes): over
 * any sequence of appends, writes that fail before or after landing, archives, restore archives written or given up,
 * prunes and reopens, the number stored (when one is) equals the live entries, and a prune keeps exactly the newest N
 * (never one at or above the replay floor), as a walk of the whole log would.
 */
import fc from 'fast-check';
import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { ConversationLog } from '../../../src/subsystems/conversation/conversation-log.js';
import { LIVE_COUNT_KEY } from '../../../src/subsystems/conversation/live-count.js';
import type { NewConversationMessage } from '../../../src/protocol/conversation.schema.js';
import { SUBLEVELS, type VigilDb } from '../../../src/subsystems/store/vigil-db.js';

const AT = Date.parse('2026-01-01T00:00:00Z');

type Step =
  | { kind: 'append'; n: number }
  | { kind: 'fail'; landed: boolean; n: number }
  | { kind: 'archive'; at: number }
  | { kind: 'restore'; at: number; n: number; outcome: 'written' | 'abandoned' }
  | { kind: 'prune'; keep: number; floor: number }
  | { kind: 'reopen' };

const fraction = fc.double({ min: 0, max: 1, noNaN: true });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('append' as const), n: fc.integer({ min: 1, max: 6 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('fail' as const),
      landed: fc.boolean(),
      n: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('archive' as const), at: fraction }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('restore' as const),
      at: fraction,
      n: fc.integer({ min: 0, max: 2 }),
      outcome: fc.constantFrom('written' as const, 'abandoned' as const),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('prune' as const),
      keep: fc.integer({ min: 0, max: 12 }),
      floor: fraction,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const) }) },
);

function message(i: number): NewConversationMessage {
  return { turnId: `t-${i}`, role: 'user', text: `message ${i}`, from: 'cli', at: AT + i };
}

/** A root database whose next batch can fail, before its operations land or after. */
function faultyDb(): { db: VigilDb; failNext: (landed: boolean) => void } {
  const db = new MemoryLevel<string, string>() as unknown as VigilDb;
  const batch = db.batch.bind(db) as (...args: unknown[]) => Promise<void>;
  let armed: { landed: boolean } | null = null;
  Object.assign(db, {
    batch: async (...args: unknown[]) => {
      const fault = armed;
      armed = null;
      if (fault === null) return batch(...args);
      if (fault.landed) await batch(...args);
      throw Object.assign(new Error('simulated I/O error'), { code: 'LEVEL_IO_ERROR' });
    },
  });
  return { db, failNext: (landed) => (armed = { landed }) };
}

describe('the conversation log’s stored count of live entries', () => {
  it('always equals the live entries when stored, and prunes keep exactly the newest N', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 40 }), async (steps) => {
        const { db, failNext } = faultyDb();
        const meta = db.sublevel<string, unknown>(SUBLEVELS.conversationMeta, { valueEncoding: 'json' });
        let log = new ConversationLog(db);
        await log.open();
        let live: number[] = [];
        let next = 0;
        const readLive = async () => (await log.readAfter(0)).map((m) => m.seq);
        for (const [index, step] of steps.entries()) {
          switch (step.kind) {
            case 'append':
              for (let i = 0; i < step.n; i += 1) live.push((await log.append(message((next += 1)))).seq);
              break;
            case 'fail': {
              failNext(step.landed);
              const batch = Array.from({ length: step.n }, () => message((next += 1)));
              await expect(log.appendAll(batch)).rejects.toMatchObject({ code: 'STORE_IO' });
              // Landed or not, the seqs are spent; what landed is live.
              live = await readLive();
              break;
            }
            case 'archive': {
              const watermark = Math.floor(step.at * (live.at(-1) ?? 0));
              await log.archiveAfter(watermark, `a-${index}`);
              live = live.filter((seq) => seq <= watermark);
              break;
            }
            case 'restore': {
              const watermark = Math.floor(step.at * (live.at(-1) ?? 0));
              const append = Array.from({ length: step.n }, () => message((next += 1)));
              const plan = await log.prepareArchive(watermark, `r-${index}`, append);
              if (step.outcome === 'abandoned') {
                plan.abandoned();
                break;
              }
              await db.batch(plan.ops as never, { sync: true } as never);
              plan.committed();
              live = [...live.filter((seq) => seq <= watermark), ...plan.appended.map((m) => m.seq)];
              break;
            }
            case 'prune': {
              const floor = Math.floor(step.floor * (live.at(-1) ?? 0));
              // A write that failed after landing leaves its entries above the watermark until a reopen reads them.
              const watermark = log.watermark();
              await log.pruneOldest(step.keep, floor);
              const boundary = live.length > step.keep ? live[live.length - step.keep - 1]! : 0;
              const cut = Math.min(boundary, floor, watermark);
              live = live.filter((seq) => seq > cut);
              break;
            }
            case 'reopen':
              log = new ConversationLog(db);
              await log.open();
              break;
          }
          expect(await readLive()).toEqual(live);
          const stored = await meta.get(LIVE_COUNT_KEY);
          if (stored !== undefined) expect(stored).toBe(live.length);
        }
        await db.close();
      }),
      { numRuns: 150 },
    );
  });

  it('is stored by the first prune of a log that had none, and read from then on', async () => {
    const { db } = faultyDb();
    const meta = db.sublevel<string, unknown>(SUBLEVELS.conversationMeta, { valueEncoding: 'json' });
    const log = new ConversationLog(db);
    await log.open();
    for (let i = 1; i <= 30; i += 1) await log.append(message(i));
    // A data dir from before the count: none stored, so the first prune counts the log once.
    await meta.del(LIVE_COUNT_KEY);
    const reopened = new ConversationLog(db);
    await reopened.open();
    expect(await reopened.pruneOldest(10, 30)).toBe(20);
    expect(await meta.get(LIVE_COUNT_KEY)).toBe(10);
    await reopened.append(message(31));
    expect(await meta.get(LIVE_COUNT_KEY)).toBe(11);
    expect(await reopened.pruneOldest(10, 31)).toBe(1);
    expect((await reopened.readAfter(0)).map((m) => m.seq)).toEqual([22, 23, 24, 25, 26, 27, 28, 29, 30, 31]);
    await db.close();
  });
});
