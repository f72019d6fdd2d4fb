/** The sealing database and the boot's seal check: every value ciphertext before LevelDB sees it, every store API intact, wrong and missing keys refused. */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLevel } from 'memory-level';
import { afterAll, describe, expect, it } from 'vitest';
import { isVigilError, type VigilError } from '../../../src/errors.js';
import { CheckpointCipher } from '../../../src/subsystems/checkpoint/checkpoint-cipher.js';
import { SealedLevel } from '../../../src/subsystems/store/sealed-level.js';
import { sealStore } from '../../../src/subsystems/store/store-seal.js';
import { isSealedValue, ValueCipher, VALUE_SEAL_OVERHEAD_BYTES } from '../../../src/subsystems/store/value-cipher.js';
import { openVigilDb, SUBLEVELS, writeSyncBatch, type VigilDb } from '../../../src/subsystems/store/vigil-db.js';

const KEY_A = 'a1'.repeat(32);
const KEY_B = 'b2'.repeat(32);
const MARKER = 'zebra-lantern-5521';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'vigil-sealed-'));
  dirs.push(dir);
  return dir;
}

/** Every byte of every file under `dir`. */
async function allBytes(dir: string): Promise<Buffer> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  return Buffer.concat(await Promise.all(files.map((file) => readFile(join(file.parentPath, file.name)))));
}

async function caught(promise: Promise<unknown>): Promise<VigilError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isVigilError(err)) throw new Error(`expected a VigilError, got ${String(err)}`);
  return err;
}

/** Writes through sublevels of every encoding the stores use, the ways the stores write. */
async function writeEverything(db: VigilDb): Promise<void> {
  const json = db.sublevel<string, { text: string; n: number }>('json-things', { valueEncoding: 'json' });
  const text = db.sublevel<string, string>('text-things', { valueEncoding: 'utf8' });
  const bytes = db.sublevel<string, Uint8Array>('byte-things', { valueEncoding: 'view' });
  for (let i = 0; i < 20; i += 1) await json.put(`k${String(i).padStart(2, '0')}`, { text: `${MARKER} ${i}`, n: i });
  await writeSyncBatch(db, [
    { type: 'put', sublevel: text, key: 'a', value: `${MARKER} a` },
    { type: 'put', sublevel: text, key: 'b', value: `${MARKER} b` },
    { type: 'put', sublevel: bytes, key: 'x', value: new Uint8Array(Buffer.from(`${MARKER} bytes`)) },
  ]);
  await text.batch([
    { type: 'put', key: 'c', value: `${MARKER} c` },
    { type: 'del', key: 'b' },
  ]);
}

describe('SealedLevel', () => {
  it('keeps every value of every encoding out of LevelDB files, while open and after close, and reads them all back', async () => {
    const dir = await tempDir();
    const inner = await openVigilDb(dir);
    const db = new SealedLevel(inner, new ValueCipher(KEY_A), { closeInner: true });
    await db.open();
    await writeEverything(db);
    // While running: the write-ahead log holds what was written, and it holds no marker.
    const running = await allBytes(dir);
    expect(running.includes(Buffer.from('json-things'))).toBe(true); // keys are there: the scan sees the log
    expect(running.includes(Buffer.from(MARKER))).toBe(false);

    const json = db.sublevel<string, { text: string; n: number }>('json-things', { valueEncoding: 'json' });
    const text = db.sublevel<string, string>('text-things', { valueEncoding: 'utf8' });
    expect(await json.get('k03')).toEqual({ text: `${MARKER} 3`, n: 3 });
    expect(await json.getMany(['k01', 'nope', 'k19'])).toEqual([
      { text: `${MARKER} 1`, n: 1 },
      undefined,
      { text: `${MARKER} 19`, n: 19 },
    ]);
    expect(await text.iterator().all()).toEqual([
      ['a', `${MARKER} a`],
      ['c', `${MARKER} c`],
    ]);
    expect(await json.keys({ reverse: true, limit: 2 }).all()).toEqual(['k19', 'k18']);
    expect((await json.values({ gt: 'k16' }).all()).map((v) => v.n)).toEqual([17, 18, 19]);
    expect(await json.iterator({ gte: 'k05', lt: 'k07' }).all()).toEqual([
      ['k05', { text: `${MARKER} 5`, n: 5 }],
      ['k06', { text: `${MARKER} 6`, n: 6 }],
    ]);
    const seeking = json.iterator();
    seeking.seek('k10');
    expect((await seeking.next())?.[0]).toBe('k10');
    await seeking.close();
    expect(
      Buffer.from(
        (await db.sublevel<string, Uint8Array>('byte-things', { valueEncoding: 'view' }).get('x'))!,
      ).toString(),
    ).toBe(`${MARKER} bytes`);
    await json.clear({ lt: 'k10' });
    expect(await json.keys().all()).toHaveLength(10);

    // What LevelDB holds is the sealed form, one header and tag per value.
    const raw = await inner.sublevel<string, Uint8Array>('text-things', { valueEncoding: 'view' }).get('a');
    expect(isSealedValue(raw!)).toBe(true);
    expect(raw!.byteLength).toBe(Buffer.byteLength(`${MARKER} a`) + VALUE_SEAL_OVERHEAD_BYTES);

    await db.close();
    expect(inner.status).toBe('closed');
    expect((await allBytes(dir)).includes(Buffer.from(MARKER))).toBe(false);
  });

  it('refuses a value moved under another key (STORE_CORRUPT) and one sealed with another key (STORE_KEY_INVALID)', async () => {
    const inner = new MemoryLevel() as unknown as VigilDb;
    const db = new SealedLevel(inner, new ValueCipher(KEY_A), { closeInner: false });
    await db.open();
    const things = db.sublevel<string, string>('things', { valueEncoding: 'utf8' });
    await things.put('one', 'first');
    const rawThings = inner.sublevel<string, Uint8Array>('things', { valueEncoding: 'view' });
    await rawThings.put('two', (await rawThings.get('one'))!);
    const moved = await caught(things.get('two'));
    expect(moved.code).toBe('STORE_CORRUPT');
    expect(moved.message).toMatch(/^The stored value of "!things!two" failed authentication .* moved from another key/);
    const other = new SealedLevel(inner, new ValueCipher(KEY_B), { closeInner: false });
    await other.open();
    const err = await caught(other.sublevel<string, string>('things', { valueEncoding: 'utf8' }).get('one'));
    expect(err.code).toBe('STORE_KEY_INVALID');
    expect(err.message).toMatch(/sealed with another key .* than VIGIL_CHECKPOINT_KEY/);
    await other.close();
    await db.close();
    expect(inner.status).toBe('open');
  });

  it('reads a plain value written before the key was set', async () => {
    const inner = new MemoryLevel() as unknown as VigilDb;
    await inner.sublevel<string, string>('old', { valueEncoding: 'json' }).put('k', 'from before');
    const db = new SealedLevel(inner, new ValueCipher(KEY_A), { closeInner: false });
    expect(await db.sublevel<string, string>('old', { valueEncoding: 'json' }).get('k')).toBe('from before');
  });
});

describe('sealStore', () => {
  it('re-seals every plain value on the first boot with a key, writes the canary, and compacts the plaintext away', async () => {
    const dir = await tempDir();
    const plain = await openVigilDb(dir);
    await writeEverything(plain);
    await plain.close();
    expect((await allBytes(dir)).includes(Buffer.from(MARKER))).toBe(true);

    const first = await sealStore(await openVigilDb(dir), KEY_A, { closeInner: true });
    expect(first.report).toEqual({ keyId: new ValueCipher(KEY_A).keyId, resealed: 23 });
    expect(await first.db.sublevel<string, string>('text-things', { valueEncoding: 'utf8' }).get('c')).toBe(
      `${MARKER} c`,
    );
    expect((await allBytes(dir)).includes(Buffer.from(MARKER))).toBe(false);
    await first.db.close();

    const again = await sealStore(await openVigilDb(dir), KEY_A, { closeInner: true });
    expect(again.report.resealed).toBe(0);
    expect(
      (await again.db.sublevel<string, { n: number }>('json-things', { valueEncoding: 'json' }).get('k07'))?.n,
    ).toBe(7);
    await again.db.close();
    expect((await allBytes(dir)).includes(Buffer.from(MARKER))).toBe(false);
  });

  it('refuses a wrong key and a missing key with STORE_KEY_INVALID naming VIGIL_CHECKPOINT_KEY, changing nothing', async () => {
    const inner = new MemoryLevel() as unknown as VigilDb;
    const { db } = await sealStore(inner, KEY_A, { closeInner: false, dataDir: '/srv/agent' });
    await writeEverything(db);
    const before = await inner.iterator({ valueEncoding: 'view' }).all();

    const wrong = await caught(sealStore(inner, KEY_B, { closeInner: false, dataDir: '/srv/agent' }));
    expect(wrong.code).toBe('STORE_KEY_INVALID');
    expect(wrong.message).toMatch(
      /^The data dir \/srv\/agent is sealed with another key \(key id [0-9a-f]{8}\) than VIGIL_CHECKPOINT_KEY \(key id [0-9a-f]{8}\)/,
    );
    expect(wrong.data).toMatchObject({
      variable: 'VIGIL_CHECKPOINT_KEY',
      sealedWithKeyId: new ValueCipher(KEY_A).keyId,
      keyId: new ValueCipher(KEY_B).keyId,
    });
    const missing = await caught(sealStore(inner, undefined, { closeInner: false }));
    expect(missing.code).toBe('STORE_KEY_INVALID');
    expect(missing.message).toMatch(/is sealed \(key id [0-9a-f]{8}\) but VIGIL_CHECKPOINT_KEY is not set/);
    expect(await inner.iterator({ valueEncoding: 'view' }).all()).toEqual(before);
  });

  it('refuses a data dir whose checkpoint bodies another key sealed (before whole-store sealing), with or without a key', async () => {
    const inner = new MemoryLevel() as unknown as VigilDb;
    const bodies = inner.sublevel<string, Uint8Array>(SUBLEVELS.checkpointBodies, { valueEncoding: 'view' });
    await bodies.put('ck-1', new CheckpointCipher(KEY_B).seal('ck-1', new Uint8Array([0x1f, 0x8b, 1, 2])));
    expect((await caught(sealStore(inner, KEY_A, { closeInner: false }))).code).toBe('STORE_KEY_INVALID');
    expect((await caught(sealStore(inner, undefined, { closeInner: false }))).message).toMatch(
      /but VIGIL_CHECKPOINT_KEY is not set/,
    );
    // The key that sealed them is welcome: the store is sealed from then on.
    const { report } = await sealStore(inner, KEY_B, { closeInner: false });
    expect(report.resealed).toBe(1);
  });

  it('refuses values left sealed by another key when a first sealing was cut short before its canary', async () => {
    const inner = new MemoryLevel() as unknown as VigilDb;
    const cut = new SealedLevel(inner, new ValueCipher(KEY_B), { closeInner: false });
    await cut.sublevel<string, string>('things', { valueEncoding: 'utf8' }).put('k', MARKER);
    expect((await caught(sealStore(inner, KEY_A, { closeInner: false }))).code).toBe('STORE_KEY_INVALID');
  });

  it('returns the database itself when no key is set and nothing is sealed', async () => {
    const inner = new MemoryLevel() as unknown as VigilDb;
    await writeEverything(inner);
    const { db, report } = await sealStore(inner, undefined, { closeInner: false });
    expect(db).toBe(inner);
    expect(report).toEqual({ keyId: null, resealed: 0 });
  });
});
