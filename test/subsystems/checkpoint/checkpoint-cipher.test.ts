/** The checkpoint cipher on its own: key forms, the sealed header, fresh IVs, the id bound as AAD, every flipped bit, wrong and missing keys. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isVigilError } from '../../../src/errors.js';
import {
  assertOpenable,
  CheckpointCipher,
  decodeCheckpointKey,
  keyIdOf,
  SEAL_OVERHEAD_BYTES,
  SEALED_MAGIC,
} from '../../../src/subsystems/checkpoint/checkpoint-cipher.js';

const KEY = Buffer.alloc(32, 7);
const OTHER = Buffer.alloc(32, 9);
const PLAIN = new Uint8Array(Buffer.from('a gzip body, as far as the cipher cares'));

/** The VigilError `fn` throws. */
function thrown(fn: () => unknown): { code: string; message: string; data: any } {
  try {
    fn();
  } catch (err) {
    if (isVigilError(err)) return err;
    throw err;
  }
  throw new Error('expected a VigilError');
}

describe('decodeCheckpointKey', () => {
  it('reads 32 bytes as 64 hex characters or as base64, padded or not, standard or URL-safe alphabet', () => {
    const key = randomBytes(32);
    for (const text of [
      key.toString('hex'),
      key.toString('hex').toUpperCase(),
      key.toString('base64'),
      key.toString('base64').replace(/=$/, ''),
      key.toString('base64url'),
      `  ${key.toString('hex')}\n`,
    ]) {
      expect(decodeCheckpointKey(text)).toEqual(key);
    }
  });

  it('refuses anything that is not exactly 32 bytes in one of those forms', () => {
    const key = randomBytes(32);
    for (const text of [
      '',
      key.toString('hex').slice(1),
      `${key.toString('hex')}00`,
      randomBytes(31).toString('base64'),
      randomBytes(33).toString('base64'),
      'correct horse battery staple correct horse battery',
      `${key.toString('hex').slice(0, 63)}g`,
    ]) {
      expect(decodeCheckpointKey(text)).toBeNull();
    }
  });
});

describe('CheckpointCipher', () => {
  it('seals with a header (magic, version 1, key id), a fresh IV each time and a tag, and opens what it sealed', () => {
    const cipher = new CheckpointCipher(KEY);
    const a = Buffer.from(cipher.seal('ck-1', PLAIN));
    const b = Buffer.from(cipher.seal('ck-1', PLAIN));
    expect(a.subarray(0, 4)).toEqual(SEALED_MAGIC);
    expect(a[4]).toBe(1);
    expect(a.subarray(5, 9)).toEqual(keyIdOf(KEY));
    expect(a.length).toBe(PLAIN.length + SEAL_OVERHEAD_BYTES);
    expect(a.subarray(9, 21).equals(b.subarray(9, 21))).toBe(false);
    expect(a.equals(b)).toBe(false);
    expect(Buffer.from(cipher.open('ck-1', a))).toEqual(Buffer.from(PLAIN));
    expect(a.includes(Buffer.from('gzip body'))).toBe(false);
  });

  it('binds the checkpoint id: a body moved under another id fails authentication as CHECKPOINT_CORRUPT', () => {
    const cipher = new CheckpointCipher(KEY);
    const err = thrown(() => cipher.open('ck-2', cipher.seal('ck-1', PLAIN)));
    expect(err.code).toBe('CHECKPOINT_CORRUPT');
    expect(err.message).toMatch(/Checkpoint ck-2 failed authentication.*moved from another checkpoint/);
  });

  it('refuses a flipped bit anywhere in the IV, ciphertext or tag, and a cut body, as CHECKPOINT_CORRUPT', () => {
    const cipher = new CheckpointCipher(KEY);
    const sealed = cipher.seal('ck-1', PLAIN);
    for (let at = 9; at < sealed.length; at += 1) {
      const flipped = Uint8Array.from(sealed);
      flipped[at] = flipped[at]! ^ 0x01;
      expect(thrown(() => cipher.open('ck-1', flipped)).code).toBe('CHECKPOINT_CORRUPT');
    }
    expect(thrown(() => cipher.open('ck-1', sealed.slice(0, sealed.length - 1))).code).toBe('CHECKPOINT_CORRUPT');
    expect(thrown(() => cipher.open('ck-1', sealed.slice(0, 20))).message).toMatch(/truncated/);
  });

  it('says CHECKPOINT_KEY_INVALID, naming VIGIL_CHECKPOINT_KEY and both key ids, for a body another key sealed', () => {
    const sealed = new CheckpointCipher(OTHER).seal('ck-1', PLAIN);
    const err = thrown(() => new CheckpointCipher(KEY).open('ck-1', sealed));
    expect(err.code).toBe('CHECKPOINT_KEY_INVALID');
    expect(err.message).toContain('VIGIL_CHECKPOINT_KEY');
    expect(err.message).toContain(keyIdOf(OTHER).toString('hex'));
    expect(err.data).toMatchObject({
      vigilCode: 'CHECKPOINT_KEY_INVALID',
      variable: 'VIGIL_CHECKPOINT_KEY',
      sealedWithKeyId: keyIdOf(OTHER).toString('hex'),
    });
  });

  it('says CHECKPOINT_KEY_INVALID for a sealed body when no key is set, and FORMAT_UNSUPPORTED for a newer sealed format', () => {
    const sealed = new CheckpointCipher(KEY).seal('ck-1', PLAIN);
    const missing = thrown(() => assertOpenable(sealed, 'Checkpoint ck-1', undefined));
    expect(missing.code).toBe('CHECKPOINT_KEY_INVALID');
    expect(missing.message).toMatch(/encrypted.*VIGIL_CHECKPOINT_KEY is not set/);
    const newer = Uint8Array.from(sealed);
    newer[4] = 2;
    expect(thrown(() => new CheckpointCipher(KEY).open('ck-1', newer))).toMatchObject({
      code: 'CHECKPOINT_FORMAT_UNSUPPORTED',
    });
  });

  it('refuses a key of the wrong size or form as CONFIG_INVALID without echoing it', () => {
    const err = thrown(() => new CheckpointCipher('not-a-key-but-a-secret'));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain('VIGIL_CHECKPOINT_KEY');
    expect(JSON.stringify(err)).not.toContain('not-a-key-but-a-secret');
    expect(err.message).not.toContain('not-a-key-but-a-secret');
    expect(thrown(() => new CheckpointCipher(Buffer.alloc(16))).code).toBe('CONFIG_INVALID');
  });
});
