import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { afterAll, describe, expect, it } from 'vitest';
import type { WebhookAttempt, WebhookRecord } from '../../../src/protocol/webhooks.schema.js';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import { SealedLevel } from '../../../src/subsystems/store/sealed-level.js';
import { ValueCipher } from '../../../src/subsystems/store/value-cipher.js';
import { openVigilDb, SUBLEVELS, type VigilDb } from '../../../src/subsystems/store/vigil-db.js';
import { newWebhookSecret } from '../../../src/subsystems/webhooks/webhook-signing.js';
import { ADVANCE_FLUSH_MS, ATTEMPTS_KEPT, WebhookStore } from '../../../src/subsystems/webhooks/webhook-store.js';

const KEY = 'c3'.repeat(32);
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function sealedDb(dir: string): Promise<VigilDb> {
  return new SealedLevel(await openVigilDb(dir), new ValueCipher(KEY), { closeInner: true });
}

async function allBytes(dir: string): Promise<Buffer> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  return Buffer.concat(await Promise.all(files.map((file) => readFile(join(file.parentPath, file.name)))));
}

const record = (secret: string): WebhookRecord => ({
  id: 'wh_00000000000000b2',
  name: 'receiver',
  url: 'https://example.test/hook',
  types: ['agent.reply'],
  secret,
  createdAt: 1,
  windowFloorAt: 1,
  deliveredSeq: 0,
  health: { state: 'ok' },
});
const attempt = (seq: number): WebhookAttempt => ({
  seq,
  webhookId: `evt_${seq}_0000000000000000`,
  attempt: 1,
  at: '2026-01-01T00:00:00.000Z',
  status: 200,
  ms: 3,
});

describe('WebhookStore', () => {
  it('keeps endpoints and cursors across a reopen, with the secret nowhere in the files in plaintext', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vigil-webhooks-'));
    dirs.push(dir);
    const secret = newWebhookSecret();
    let db = await sealedDb(dir);
    let store = await WebhookStore.open(db);
    await store.save(record(secret));
    await store.save({ ...record(secret), deliveredSeq: 7 }, attempt(7));
    await db.close();
    const bytes = await allBytes(dir);
    expect(bytes.includes(Buffer.from(secret))).toBe(false);
    expect(bytes.includes(Buffer.from(secret.slice(6, 30)))).toBe(false);
    expect(bytes.includes(Buffer.from('example.test'))).toBe(false);

    db = await sealedDb(dir);
    store = await WebhookStore.open(db);
    expect(store.get('wh_00000000000000b2')).toMatchObject({ deliveredSeq: 7, secret });
    expect(await store.attempts('wh_00000000000000b2', 10)).toEqual([attempt(7)]);
    await db.close();
  });

  it('keeps the newest attempts per endpoint, newest first, and removes them with the endpoint', async () => {
    // In memory: a thousand synced writes on a shared disk would time the test, not the store.
    const db = new MemoryLevel() as unknown as VigilDb;
    const store = await WebhookStore.open(db);
    await store.save(record(newWebhookSecret()));
    for (let seq = 1; seq <= ATTEMPTS_KEPT + 150; seq += 1)
      await store.recordAttempt('wh_00000000000000b2', attempt(seq));
    const kept = await store.attempts('wh_00000000000000b2', 5000);
    expect(kept.map((a) => a.seq)).toEqual(Array.from({ length: ATTEMPTS_KEPT }, (_, i) => ATTEMPTS_KEPT + 150 - i));
    await store.remove('wh_00000000000000b2');
    expect(store.get('wh_00000000000000b2')).toBeUndefined();
    expect(await store.attempts('wh_00000000000000b2', 10)).toEqual([]);
    await db.close();
  });

  it("counts a delivery's advance at once and writes it with the next batch: a crash before it repeats, never skips", async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const clock = createSimulatedClock(0);
    const store = await WebhookStore.open(db, { timers: clock });
    const id = 'wh_00000000000000b2';
    await store.save(record(newWebhookSecret()));
    store.advance({ ...record(store.get(id)!.secret), deliveredSeq: 1 }, attempt(1));
    store.advance({ ...record(store.get(id)!.secret), deliveredSeq: 2 }, attempt(2));
    expect(store.get(id)?.deliveredSeq).toBe(2);
    // What a process killed now would find on disk: the cursor before both deliveries (they go out again).
    expect((await WebhookStore.open(db)).get(id)?.deliveredSeq).toBe(0);

    clock.increment(ADVANCE_FLUSH_MS);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await WebhookStore.open(db)).get(id)?.deliveredSeq).toBe(2);
    expect((await store.attempts(id, 10)).map((a) => a.seq)).toEqual([2, 1]);

    // A state change is synced with what is queued before it, in order: the newer record wins.
    store.advance({ ...record(store.get(id)!.secret), deliveredSeq: 3 }, attempt(3));
    const failing = {
      ...record(store.get(id)!.secret),
      deliveredSeq: 3,
      health: { state: 'failing', failures: 1, since: 5, error: 'HTTP 500' },
    } as const;
    await store.save(failing, attempt(4));
    const reopened = await WebhookStore.open(db);
    expect(reopened.get(id)).toMatchObject({ deliveredSeq: 3, health: { state: 'failing' } });
    expect((await reopened.attempts(id, 10)).map((a) => a.seq)).toEqual([4, 3, 2, 1]);
    await db.close();
  });

  it('trims a log an earlier version left longer than ATTEMPTS_KEPT at the first attempt of a run', async () => {
    const db = new MemoryLevel() as unknown as VigilDb;
    const id = 'wh_00000000000000b2';
    const log = db.sublevel<string, WebhookAttempt>(SUBLEVELS.webhookAttempts, { valueEncoding: 'json' });
    await log.batch(
      Array.from({ length: ATTEMPTS_KEPT + 99 }, (_, i) => ({
        type: 'put' as const,
        key: `${id}!${String(i + 1).padStart(12, '0')}`,
        value: attempt(i + 1),
      })),
    );
    const store = await WebhookStore.open(db);
    await store.save(record(newWebhookSecret()));
    await store.recordAttempt(id, attempt(ATTEMPTS_KEPT + 100));
    const kept = await store.attempts(id, 5000);
    expect(kept).toHaveLength(ATTEMPTS_KEPT);
    expect(kept[0]?.seq).toBe(ATTEMPTS_KEPT + 100);
    await db.close();
  });
});
