/** The sealed value format: deflate before sealing where it pays (marked in the header), format 1 values still read, header edits refused. */
import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { isVigilError, type VigilError } from '../../../src/errors.js';
import { keyIdOf } from '../../../src/subsystems/checkpoint/checkpoint-cipher.js';
import { SealedLevel } from '../../../src/subsystems/store/sealed-level.js';
import {
  VALUE_SEAL_OVERHEAD_BYTES,
  VALUE_SEAL_VERSION,
  ValueCipher,
} from '../../../src/subsystems/store/value-cipher.js';
import {
  COMPRESS_MIN_BYTES,
  CONVERSATION_COMPRESS_MIN_BYTES,
  VALUE_CODEC,
} from '../../../src/subsystems/store/value-compression.js';
import { openVigilDb } from '../../../src/subsystems/store/vigil-db.js';

const KEY = 'a1'.repeat(32);
const STORE_KEY = Buffer.from('!conversation!0000000000000007');
const MARKER = 'quartz-heron-8830';
const cipher = new ValueCipher(KEY);
const CODEC_AT = 7;

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

function caught(fn: () => unknown): VigilError {
  try {
    fn();
  } catch (err) {
    if (isVigilError(err)) return err;
    throw err;
  }
  throw new Error('expected a VigilError');
}

/** A message as the conversation log stores it: JSON of ordinary words. */
function messageJson(words: number): Buffer {
  const text = Array.from(
    { length: words },
    (_, i) => ['the', 'keeper', 'asks', 'about', 'tides', 'and', 'oil', MARKER][i % 8],
  ).join(' ');
  return Buffer.from(JSON.stringify({ seq: 7, turnId: 'turn-0000000007', role: 'user', text, at: 1_767_225_600_000 }));
}

/** A value sealed the way format 1 (before compression) wrote it: no codec byte, IV at 7. */
function sealFormat1(key: string, storeKey: Uint8Array, plain: Uint8Array): Buffer {
  const raw = Buffer.from(key, 'hex');
  const aesKey = Buffer.from(hkdfSync('sha256', raw, Buffer.alloc(0), 'vigil store value seal v1', 32));
  const prefix = Buffer.concat([Buffer.from([0x00, 0x53, 1]), keyIdOf(raw)]);
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', aesKey, iv, { authTagLength: 16 });
  c.setAAD(Buffer.concat([prefix, storeKey]));
  return Buffer.concat([prefix, iv, c.update(plain), c.final(), c.getAuthTag()]);
}

describe('ValueCipher', () => {
  it('deflates a value of the threshold or more before sealing it, says so in the header, and opens it to the same bytes', () => {
    const plain = messageJson(60);
    expect(plain.byteLength).toBeGreaterThan(CONVERSATION_COMPRESS_MIN_BYTES);
    expect(plain.byteLength).toBeLessThan(COMPRESS_MIN_BYTES);
    // Under the general threshold it is stored as it is; with the conversation's, deflated.
    expect(cipher.seal(STORE_KEY, plain)[CODEC_AT]).toBe(VALUE_CODEC.stored);
    const sealed = cipher.seal(STORE_KEY, plain, CONVERSATION_COMPRESS_MIN_BYTES);
    expect(sealed[2]).toBe(VALUE_SEAL_VERSION);
    expect(sealed[CODEC_AT]).toBe(VALUE_CODEC.deflateRaw);
    expect(sealed.byteLength).toBeLessThan(plain.byteLength);
    expect(sealed.includes(Buffer.from(MARKER))).toBe(false);
    expect(cipher.open(STORE_KEY, sealed).equals(plain)).toBe(true);
  });

  it('stores as they are a short value, one deflate cannot shrink by an eighth, and one already gzip-compressed', () => {
    const short = Buffer.from(JSON.stringify({ turnId: 'turn-1', at: 1 }));
    const random = randomBytes(COMPRESS_MIN_BYTES * 4);
    const gzipped = gzipSync(messageJson(200));
    for (const plain of [short, random, gzipped]) {
      const sealed = cipher.seal(STORE_KEY, plain);
      expect(sealed[CODEC_AT]).toBe(VALUE_CODEC.stored);
      expect(sealed.byteLength).toBe(plain.byteLength + VALUE_SEAL_OVERHEAD_BYTES);
      expect(cipher.open(STORE_KEY, sealed).equals(plain)).toBe(true);
    }
  });

  it('reads a value sealed in format 1 (no codec byte), and refuses it under another stored key', () => {
    const plain = messageJson(60);
    const old = sealFormat1(KEY, STORE_KEY, plain);
    expect(cipher.open(STORE_KEY, old).equals(plain)).toBe(true);
    expect(caught(() => cipher.open(Buffer.from('!conversation!0000000000000008'), old)).code).toBe('STORE_CORRUPT');
  });

  it('refuses a header edited to claim another codec (STORE_CORRUPT), and a format or codec this build does not read (STORE_KEY_INVALID)', () => {
    const sealed = cipher.seal(STORE_KEY, messageJson(60), CONVERSATION_COMPRESS_MIN_BYTES);
    const flipped = Buffer.from(sealed);
    flipped[CODEC_AT] = VALUE_CODEC.stored;
    expect(caught(() => cipher.open(STORE_KEY, flipped)).code).toBe('STORE_CORRUPT');
    const unknownCodec = Buffer.from(sealed);
    unknownCodec[CODEC_AT] = 9;
    const codecErr = caught(() => cipher.open(STORE_KEY, unknownCodec));
    expect(codecErr.code).toBe('STORE_KEY_INVALID');
    expect(codecErr.message).toMatch(/sealed with codec 9; this build reads codecs 0 and 1/);
    const newer = Buffer.from(sealed);
    newer[2] = 3;
    expect(caught(() => cipher.open(STORE_KEY, newer)).message).toMatch(
      /sealed in format 3; this build reads sealed formats 1 and 2/,
    );
  });

  it('never repeats an IV across many values', () => {
    const ivs = new Set<string>();
    for (let i = 0; i < 2000; i += 1) ivs.add(cipher.seal(STORE_KEY, Buffer.from('x')).subarray(8, 20).toString('hex'));
    expect(ivs.size).toBe(2000);
  });
});

describe('SealedLevel with compressed values', () => {
  it('deflates conversation values from the conversation threshold and others from the general one, keeps them out of LevelDB files, and reads format 1 and 2 values alike', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vigil-value-cipher-'));
    dirs.push(dir);
    const inner = await openVigilDb(dir);
    const db = new SealedLevel(inner, new ValueCipher(KEY), { closeInner: true });
    await db.open();
    const log = db.sublevel<string, { text: string }>('conversation', { valueEncoding: 'json' });
    const text = `${MARKER} ${'the keeper asks about the tides '.repeat(20)}`;
    for (let i = 0; i < 50; i += 1) await log.put(String(i).padStart(4, '0'), { text: `${i} ${text}` });
    // A value written by a build before compression, under the same key.
    const rawLog = inner.sublevel<string, Uint8Array>('conversation', { valueEncoding: 'view' });
    await rawLog.put(
      '0050',
      sealFormat1(KEY, Buffer.from('!conversation!0050'), Buffer.from(JSON.stringify({ text: `50 ${text}` }))),
    );
    expect((await rawLog.get('0001'))![CODEC_AT]).toBe(VALUE_CODEC.deflateRaw);
    const mid = { text: messageJson(60).toString() };
    const journal = db.sublevel<string, { text: string }>('event-journal', { valueEncoding: 'json' });
    await journal.put('0001', mid);
    await log.put('mid', mid);
    expect(
      (await inner.sublevel<string, Uint8Array>('event-journal', { valueEncoding: 'view' }).get('0001'))![CODEC_AT],
    ).toBe(VALUE_CODEC.stored);
    expect((await rawLog.get('mid'))![CODEC_AT]).toBe(VALUE_CODEC.deflateRaw);
    expect(await journal.get('0001')).toEqual(mid);
    await log.del('mid');

    const all = await log.values().all();
    expect(all.map((v) => v.text)).toEqual(Array.from({ length: 51 }, (_, i) => `${i} ${text}`));
    await db.close();
    const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    const bytes = Buffer.concat(await Promise.all(files.map((file) => readFile(join(file.parentPath, file.name)))));
    expect(bytes.includes(Buffer.from('conversation'))).toBe(true);
    expect(bytes.includes(Buffer.from(MARKER))).toBe(false);
  });
});
