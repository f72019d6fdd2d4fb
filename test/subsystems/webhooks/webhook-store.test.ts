import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { afterAll, describe, expect, it } from 'vitest';
import type { WebhookAttempt, WebhookRecord } from '../../../src/protocol/webhooks.schema.js';
import { SealedLevel } from '../../../src/subsystems/store/sealed-level.js';
import { ValueCipher } from '../../../src/subsystems/store/value-cipher.js';
import { openVigilDb, type VigilDb } from '../../../src/subsystems/store/vigil-db.js';
import { newWebhookSecret } from '../../../src/subsystems/webhooks/webhook-signing.js';
import { ATTEMPTS_KEPT, WebhookStore } from '../../../src/subsystems/webhooks/webhook-store.js';

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
    expect(kept.length).toBeGreaterThanOrEqual(ATTEMPTS_KEPT);
    expect(kept.length).toBeLessThanOrEqual(ATTEMPTS_KEPT + 100);
    expect(kept[0]?.seq).toBe(ATTEMPTS_KEPT + 150);
    await store.remove('wh_00000000000000b2');
    expect(store.get('wh_00000000000000b2')).toBeUndefined();
    expect(await store.attempts('wh_00000000000000b2', 10)).toEqual([]);
    await db.close();
  });
});
