/** The checkpoint store contract: every behaviour of `CheckpointStore`, run against each database implementation. */
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { CheckpointStore } from '../../src/subsystems/checkpoint/checkpoint.store.js';
import { CHECKPOINT_FORMAT_VERSION, type CognitiveCheckpoint } from '../../src/protocol/checkpoint-format.schema.js';
import { SUBLEVELS, type VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { makeCheckpoint } from '../fixtures/checkpoint.fixture.js';

/** How the contract reopens a database "after a restart"; by default it closes and reopens the same instance. */
export interface CheckpointStoreContractOptions {
  reopen?: (db: VigilDb) => Promise<VigilDb>;
}

type Clock = ReturnType<typeof createSimulatedClock>;

async function reopenSameInstance(db: VigilDb): Promise<VigilDb> {
  await db.close();
  await db.open();
  return db;
}

function bodiesOf(db: VigilDb) {
  return db.sublevel<string, Uint8Array>(SUBLEVELS.checkpointBodies, { valueEncoding: 'view' });
}

function indexOf(db: VigilDb) {
  return db.sublevel<string, unknown>(SUBLEVELS.checkpointIndex, { valueEncoding: 'json' });
}

function gzipJson(value: unknown): Uint8Array {
  return gzipSync(Buffer.from(JSON.stringify(value)));
}

/** A corruption applied to a stored checkpoint, and the error code `load` then gives. */
interface CorruptionCase {
  kind: string;
  code: string;
  reason: RegExp;
  apply: (db: VigilDb, cp: CognitiveCheckpoint) => Promise<void>;
}

const CORRUPTIONS: CorruptionCase[] = [
  {
    kind: 'a truncated body',
    code: 'CHECKPOINT_CORRUPT',
    reason: /decompress/,
    apply: async (db, cp) => {
      const bytes = (await bodiesOf(db).get(cp.id))!;
      await bodiesOf(db).put(cp.id, bytes.slice(0, Math.floor(bytes.length / 2)));
    },
  },
  {
    kind: 'a bit-flipped body',
    code: 'CHECKPOINT_CORRUPT',
    reason: /decompress/,
    apply: async (db, cp) => {
      const bytes = Uint8Array.from((await bodiesOf(db).get(cp.id))!);
      // Past the 10-byte gzip header, inside the deflate stream: the CRC-32 or the inflater catches it.
      const at = Math.floor(bytes.length / 2);
      bytes[at] = bytes[at]! ^ 0x10;
      await bodiesOf(db).put(cp.id, bytes);
    },
  },
  {
    kind: 'valid gzip of invalid JSON',
    code: 'CHECKPOINT_CORRUPT',
    reason: /not valid JSON/,
    apply: async (db, cp) => {
      await bodiesOf(db).put(cp.id, gzipSync(Buffer.from('{"id": "half a checkpoint')));
    },
  },
  {
    kind: 'JSON that fails the schema',
    code: 'CHECKPOINT_CORRUPT',
    reason: /schema.*beatCount/,
    apply: async (db, cp) => {
      await bodiesOf(db).put(cp.id, gzipJson({ ...cp, beatCount: -1 }));
    },
  },
  {
    kind: 'a format newer than this build (99)',
    code: 'CHECKPOINT_FORMAT_UNSUPPORTED',
    reason: /format 99/,
    apply: async (db, cp) => {
      await bodiesOf(db).put(cp.id, gzipJson({ ...cp, formatVersion: 99 }));
    },
  },
  {
    kind: 'an index entry without its body',
    code: 'CHECKPOINT_CORRUPT',
    reason: /no body/,
    apply: async (db, cp) => {
      await bodiesOf(db).del(cp.id);
    },
  },
  {
    kind: 'an orphan body without its index entry',
    code: 'CHECKPOINT_CORRUPT',
    reason: /no index entry/,
    apply: async (db, cp) => {
      await indexOf(db).del(cp.id);
    },
  },
];

/** Runs the store contract on databases made by `factory` (each test gets a fresh one and closes it). */
export function runCheckpointStoreContract(
  name: string,
  factory: () => Promise<VigilDb>,
  options: CheckpointStoreContractOptions = {},
): void {
  const reopen = options.reopen ?? reopenSameInstance;

  describe(`CheckpointStore on ${name}`, () => {
    let db: VigilDb;
    let clock: Clock;
    let store: CheckpointStore;

    beforeEach(async () => {
      db = await factory();
      clock = createSimulatedClock();
      store = new CheckpointStore(db, clock);
      await store.open();
    });

    afterEach(async () => {
      vi.restoreAllMocks();
      if (db.status === 'open' || db.status === 'opening') await db.close();
    });

    /** Saves `n` checkpoints a second apart, returning them oldest first. */
    async function saveMany(n: number, maxCount = 100): Promise<CognitiveCheckpoint[]> {
      const saved: CognitiveCheckpoint[] = [];
      for (let i = 0; i < n; i += 1) {
        clock.increment(1_000);
        const cp = makeCheckpoint({ id: store.newId(), createdAt: clock.now(), beatCount: i * 10 });
        await store.save(cp, maxCount);
        saved.push(cp);
      }
      return saved;
    }

    it('loads exactly what it saved and lists its index entry', async () => {
      const cp = makeCheckpoint({ id: store.newId(), beatCount: 7 });
      const saved = await store.save(cp, 10);
      expect(saved).toEqual({ id: cp.id, sizeBytes: expect.any(Number), pruned: [] });
      expect(saved.sizeBytes).toBeGreaterThan(0);
      expect(await store.list()).toEqual([
        {
          id: cp.id,
          createdAt: cp.createdAt,
          beatCount: 7,
          sizeBytes: saved.sizeBytes,
          formatVersion: CHECKPOINT_FORMAT_VERSION,
        },
      ]);
      expect(await store.load(cp.id)).toEqual(cp);
      expect(await store.count()).toBe(1);
    });

    it('lists newest first, honouring limit and before', async () => {
      const ids = (await saveMany(5)).map((cp) => cp.id);
      const newestFirst = [...ids].reverse();
      expect((await store.list()).map((m) => m.id)).toEqual(newestFirst);
      expect((await store.list({ limit: 2 })).map((m) => m.id)).toEqual(newestFirst.slice(0, 2));
      expect((await store.list({ before: ids[3]!, limit: 2 })).map((m) => m.id)).toEqual([ids[2], ids[1]]);
    });

    it('lists from the index alone, even when every body is corrupt', async () => {
      const ids = (await saveMany(3)).map((cp) => cp.id);
      for (const id of ids) await bodiesOf(db).put(id, new Uint8Array([1, 2, 3]));
      expect((await store.list()).map((m) => m.id)).toEqual([...ids].reverse());
    });

    it('issues strictly increasing ids when many are created in the same millisecond', () => {
      const ids = Array.from({ length: 200 }, () => store.newId());
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual(ids);
    });

    it('keeps exactly the newest maxCount checkpoints, pruning in the save', async () => {
      const all = await saveMany(4, 3);
      clock.increment(1_000);
      const newest = makeCheckpoint({ id: store.newId(), createdAt: clock.now() });
      const saved = await store.save(newest, 3);
      expect(saved.pruned).toEqual([all[1]!.id]);
      const kept = [newest.id, all[3]!.id, all[2]!.id];
      expect((await store.list()).map((m) => m.id)).toEqual(kept);
      expect(await store.count()).toBe(3);
      expect(await bodiesOf(db).keys().all()).toEqual([...kept].reverse());
      await expect(store.load(all[0]!.id)).rejects.toMatchObject({ code: 'CHECKPOINT_NOT_FOUND' });
    });

    it('a load racing the prune of its checkpoint sees it whole or not at all, never half-deleted', async () => {
      // The crash loop once listed a checkpoint, then read its body before a save's prune landed and its index entry
      // after: on LevelDB the batch lands on a worker thread, between two reads the main thread made back to back.
      const outcomes = new Map<string, number>();
      let [previous] = await saveMany(1, 1);
      for (let round = 0; round < 300; round += 1) {
        clock.increment(1_000);
        const next = makeCheckpoint({ id: store.newId(), createdAt: clock.now(), beatCount: round });
        let saved = false;
        const saving = store.save(next, 1).then(() => (saved = true));
        // Reads back to back until the save (and its prune) has landed, and one more after.
        let last = false;
        while (!last) {
          last = saved;
          const outcome = await store.loadRaw(previous!.id).then(
            () => 'loaded',
            (err: unknown) => (err as { code?: string }).code ?? String(err),
          );
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
          // memory-level answers within microtasks: let the save's compression (a macrotask) go on.
          await new Promise((resolve) => setImmediate(resolve));
        }
        await saving;
        previous = next;
      }
      expect([...outcomes.keys()].filter((o) => o !== 'loaded' && o !== 'CHECKPOINT_NOT_FOUND')).toEqual([]);
    });

    it('prunes on request down to maxCount, bodies and index alike', async () => {
      const all = await saveMany(4);
      expect(await store.prune(1)).toEqual([all[2]!.id, all[1]!.id, all[0]!.id]);
      expect((await store.list()).map((m) => m.id)).toEqual([all[3]!.id]);
      expect(await bodiesOf(db).keys().all()).toEqual([all[3]!.id]);
    });

    it('writes body, index entry and prune deletions in one sync batch per save', async () => {
      const old = await saveMany(2, 2);
      const batch = vi.spyOn(db, 'batch');
      clock.increment(1_000);
      const cp = makeCheckpoint({ id: store.newId() });
      await store.save(cp, 2);
      expect(batch).toHaveBeenCalledTimes(1);
      const [ops, opts] = batch.mock.calls[0] as unknown as [Array<{ type: string; key: string }>, { sync?: boolean }];
      expect(opts).toMatchObject({ sync: true });
      expect(ops.filter((op) => op.type === 'put').map((op) => op.key)).toEqual([cp.id, cp.id]);
      expect(ops.filter((op) => op.type === 'del').map((op) => op.key)).toEqual([old[0]!.id, old[0]!.id]);
    });

    it('writes what is given alongside in the same batch as the checkpoint, or not at all', async () => {
      const other = db.sublevel<string, string>('alongside-test', { valueEncoding: 'utf8' });
      const batch = vi.spyOn(db, 'batch');
      const cp = makeCheckpoint({ id: store.newId() });
      await store.save(cp, 10, () => [
        { type: 'put', sublevel: other, key: 'k', value: 'written with the checkpoint' },
      ]);
      expect(batch).toHaveBeenCalledTimes(1);
      expect(await other.get('k')).toBe('written with the checkpoint');
      const bad = { ...makeCheckpoint({ id: store.newId() }), beatCount: -3 };
      await expect(
        store.save(bad, 10, () => [{ type: 'put', sublevel: other, key: 'k2', value: 'never' }]),
      ).rejects.toMatchObject({ code: 'CHECKPOINT_SAVE_FAILED' });
      expect(await other.get('k2')).toBeUndefined();
    });

    it('refuses a checkpoint that fails the schema, writing nothing', async () => {
      const bad = { ...makeCheckpoint({ id: store.newId() }), beatCount: -3 };
      await expect(store.save(bad, 5)).rejects.toMatchObject({ code: 'CHECKPOINT_SAVE_FAILED' });
      expect(await store.count()).toBe(0);
    });

    it('rejects load of an unknown id with CHECKPOINT_NOT_FOUND', async () => {
      await expect(store.load('ck-missing')).rejects.toMatchObject({ code: 'CHECKPOINT_NOT_FOUND' });
    });

    it('deletes a checkpoint, and reports an unknown one as not found', async () => {
      const [a, b] = await saveMany(2);
      await store.delete(a!.id);
      expect((await store.list()).map((m) => m.id)).toEqual([b!.id]);
      await expect(store.delete(a!.id)).rejects.toMatchObject({ code: 'CHECKPOINT_NOT_FOUND' });
    });

    it('copies a checkpoint through loadRaw and putRaw unchanged', async () => {
      const [cp] = await saveMany(1);
      const raw = await store.loadRaw(cp!.id);
      await store.delete(cp!.id);
      expect(await store.putRaw(cp!.id, raw.bytes, raw.meta)).toEqual(raw.meta);
      expect(await store.load(cp!.id)).toEqual(cp);
      await expect(store.putRaw('ck-other', raw.bytes, raw.meta)).rejects.toMatchObject({ code: 'CHECKPOINT_CORRUPT' });
    });

    it('returns the newest checkpoint when all are valid, reporting nothing', async () => {
      const all = await saveMany(3);
      const onCorrupt = vi.fn();
      expect(await store.loadNewestValid(onCorrupt)).toEqual(all[2]);
      expect(onCorrupt).not.toHaveBeenCalled();
    });

    it('returns null for an empty store', async () => {
      const onCorrupt = vi.fn();
      expect(await store.loadNewestValid(onCorrupt)).toBeNull();
      expect(onCorrupt).not.toHaveBeenCalled();
    });

    for (const c of CORRUPTIONS) {
      it(`skips a newest checkpoint with ${c.kind} and restores the next older`, async () => {
        const [older, newest] = await saveMany(2);
        await c.apply(db, newest!);
        await expect(store.load(newest!.id)).rejects.toMatchObject({ code: c.code });
        const onCorrupt = vi.fn();
        expect(await store.loadNewestValid(onCorrupt)).toEqual(older);
        expect(onCorrupt).toHaveBeenCalledTimes(1);
        expect(onCorrupt).toHaveBeenCalledWith(newest!.id, expect.stringMatching(c.reason));
      });
    }

    it('returns null when no checkpoint is valid, reporting each newest first', async () => {
      const all = await saveMany(CORRUPTIONS.length);
      for (const [i, c] of CORRUPTIONS.entries()) await c.apply(db, all[i]!);
      const onCorrupt = vi.fn();
      expect(await store.loadNewestValid(onCorrupt)).toBeNull();
      expect(onCorrupt.mock.calls.map(([id]) => id)).toEqual(all.map((cp) => cp.id).reverse());
    });

    it('keeps ids monotonic after a reopen, even with a clock that moved back', async () => {
      const before = (await saveMany(3)).map((cp) => cp.id);
      // An orphan body newer than every index entry still counts as issued.
      const orphan = store.newId();
      await bodiesOf(db).put(orphan, new Uint8Array([0]));
      db = await reopen(db);
      const earlier = createSimulatedClock(clock.now() - 3_600_000);
      const reopened = new CheckpointStore(db, earlier);
      await reopened.open();
      expect((await reopened.list()).map((m) => m.id)).toEqual([...before].reverse());
      const next = reopened.newId();
      expect(next > orphan).toBe(true);
      expect(next > before[2]!).toBe(true);
    });

    it('refuses newId before open', () => {
      const fresh = new CheckpointStore(db, clock);
      expect(() => fresh.newId()).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
    });
  });
}
