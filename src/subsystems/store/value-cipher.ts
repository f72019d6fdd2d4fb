/** Sealing of every value the store writes (deflated when it pays, then AES-256-GCM under a key derived once from VIGIL_CHECKPOINT_KEY), with the stored key bound as AAD. */
import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  hkdfSync,
  randomFillSync,
  type KeyObject,
} from 'node:crypto';
import { VigilError } from '../../errors.js';
import { CHECKPOINT_KEY_VARIABLE, decodeCheckpointKey, keyIdOf } from '../checkpoint/checkpoint-cipher.js';
import { COMPRESS_MIN_BYTES, isKnownCodec, packValue, unpackValue, VALUE_CODEC } from './value-compression.js';

/**
 * A sealed value's layout (offsets in bytes), format 2, the one this build writes:
 *
 *     0..1   magic 00 53          (no plain value Vigil stores starts with a NUL: JSON text, gzip 1f 8b, "VGCK")
 *     2      version 2            (AES-256-GCM, 12-byte IV, 16-byte tag, a codec byte)
 *     3..6   key id               (the same fingerprint as a sealed checkpoint's: which key sealed it)
 *     7      codec                (0: the value as it is, 1: raw deflate of it; see value-compression.ts)
 *     8..19  IV                   (random per value)
 *     20..   ciphertext, then the 16-byte GCM tag
 *
 * Format 1 (written before values were compressed) has no codec byte: the IV is at 7..18, the ciphertext at 19.
 * It is still read, as the value itself; nothing rewrites it. The AAD is the header up to the IV (bytes 0..7, or
 * 0..6 in format 1) followed by the value's LevelDB key (sublevel prefix included), so a value moved under another
 * key or sublevel, or a header edited to claim another codec, fails authentication.
 */
export const VALUE_MAGIC = Buffer.from([0x00, 0x53]);
/** The sealed value format this build writes. */
export const VALUE_SEAL_VERSION = 2;
/** Every sealed value format this build reads. */
export const VALUE_SEAL_VERSIONS_READ: readonly number[] = [1, 2];
const KEY_ID_BYTES = 4;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEYED_PREFIX_BYTES = VALUE_MAGIC.length + 1 + KEY_ID_BYTES;
/** Header bytes before the IV, by format: the AAD's first part. */
const PREFIX_BYTES: Record<number, number> = { 1: KEYED_PREFIX_BYTES, 2: KEYED_PREFIX_BYTES + 1 };
/** The bytes sealing adds to every value this build writes (before compression takes any away). */
export const VALUE_SEAL_OVERHEAD_BYTES = PREFIX_BYTES[VALUE_SEAL_VERSION]! + IV_BYTES + TAG_BYTES;
// IVs are cut from a block of random bytes drawn at once: one getrandom call per 341 values, not one per value
// (a call costs ~2.5 µs, as much as the AES-GCM pass over a message). Still a random 96-bit IV per value.
const IV_POOL_BYTES = IV_BYTES * 341;

/** True when `bytes` start with a sealed value's magic (whatever its version or key). */
export function isSealedValue(bytes: Uint8Array): boolean {
  return bytes.length >= VALUE_MAGIC.length && bytes[0] === VALUE_MAGIC[0] && bytes[1] === VALUE_MAGIC[1];
}

/** The key id (hex) a sealed value names, or undefined when it is too short to say. */
export function sealedValueKeyId(bytes: Uint8Array): string | undefined {
  if (bytes.length < KEYED_PREFIX_BYTES) return undefined;
  return Buffer.from(bytes.buffer, bytes.byteOffset + VALUE_MAGIC.length + 1, KEY_ID_BYTES).toString('hex');
}

/**
 * Seals and opens stored values with one key. The AES key is derived with HKDF once, at construction, so the
 * per-value cost is one AES-GCM pass (no key derivation per write), and values and checkpoint bodies never share a key.
 * A long enough value is deflated first when that saves enough (value-compression.ts).
 */
export class ValueCipher {
  /**
   * A KeyObject, not the bytes: Node 24 prepares a raw key anew for every cipher (13 µs a seal against 4 µs with a
   * KeyObject; Node 22 took 4 µs either way), and a sealed store creates a cipher for every value it writes or reads.
   */
  private readonly key: KeyObject;
  private readonly prefix: Buffer;
  private ivPool = Buffer.alloc(0);
  private ivAt = 0;
  /** The key's public fingerprint in hex (the same id checkpoint bodies carry). */
  readonly keyId: string;

  /** `key`: the variable's text (64 hex characters or base64) or its 32 raw bytes. CONFIG_INVALID otherwise. */
  constructor(key: string | Uint8Array) {
    const raw = typeof key === 'string' ? decodeCheckpointKey(key) : Buffer.from(key);
    if (raw === null || raw.length !== 32) {
      throw new VigilError(
        'CONFIG_INVALID',
        `${CHECKPOINT_KEY_VARIABLE} is invalid: expected 32 bytes as 64 hex characters or base64.`,
        {
          data: { variable: CHECKPOINT_KEY_VARIABLE },
        },
      );
    }
    this.key = createSecretKey(Buffer.from(hkdfSync('sha256', raw, Buffer.alloc(0), 'vigil store value seal v1', 32)));
    const keyIdBytes = keyIdOf(raw);
    this.keyId = keyIdBytes.toString('hex');
    this.prefix = Buffer.concat([VALUE_MAGIC, Buffer.of(VALUE_SEAL_VERSION), keyIdBytes]);
  }

  /**
   * `plain` sealed for the stored key `storeKey`: header, ciphertext, tag; a fresh random IV every time. Deflated first
   * when it is `compressFrom` bytes or longer and that saves enough.
   */
  seal(storeKey: Uint8Array, plain: Uint8Array, compressFrom = COMPRESS_MIN_BYTES): Buffer {
    const { codec, body } = packValue(plain, compressFrom);
    const ivAt = this.prefix.length + 1;
    const dataAt = ivAt + IV_BYTES;
    const out = Buffer.allocUnsafe(dataAt + body.byteLength + TAG_BYTES);
    this.prefix.copy(out, 0);
    out[this.prefix.length] = codec;
    this.nextIv(out, ivAt);
    const cipher = createCipheriv('aes-256-gcm', this.key, out.subarray(ivAt, dataAt), { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.concat([out.subarray(0, ivAt), storeKey], ivAt + storeKey.byteLength));
    // GCM is a stream mode: update returns every byte, final none.
    cipher.update(body).copy(out, dataAt);
    cipher.final();
    cipher.getAuthTag().copy(out, dataAt + body.byteLength);
    return out;
  }

  /**
   * The plain value of sealed `bytes` stored under `storeKey` (format 1 or 2). STORE_KEY_INVALID when another key
   * sealed it (or a format or codec this build does not read), STORE_CORRUPT when it fails authentication (altered,
   * cut, or moved from another key).
   */
  open(storeKey: Uint8Array, bytes: Uint8Array): Buffer {
    const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const prefixBytes = this.assertOurs(b, storeKey);
    const dataAt = prefixBytes + IV_BYTES;
    if (b.length < dataAt + TAG_BYTES) {
      throw new VigilError(
        'STORE_CORRUPT',
        `The stored value of ${describeKey(storeKey)} is sealed but only ${b.length} bytes long: it was truncated.`,
      );
    }
    const codec = prefixBytes > KEYED_PREFIX_BYTES ? b[KEYED_PREFIX_BYTES]! : VALUE_CODEC.stored;
    if (!isKnownCodec(codec)) {
      throw new VigilError(
        'STORE_KEY_INVALID',
        `The stored value of ${describeKey(storeKey)} is sealed with codec ${codec}; this build reads codecs 0 and 1.`,
        {
          data: { variable: CHECKPOINT_KEY_VARIABLE, sealedVersion: b[VALUE_MAGIC.length] ?? null },
        },
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, b.subarray(prefixBytes, dataAt), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.concat([b.subarray(0, prefixBytes), storeKey], prefixBytes + storeKey.byteLength));
    decipher.setAuthTag(b.subarray(b.length - TAG_BYTES));
    let body: Buffer;
    try {
      body = decipher.update(b.subarray(dataAt, b.length - TAG_BYTES));
      decipher.final();
    } catch (err) {
      throw new VigilError(
        'STORE_CORRUPT',
        `The stored value of ${describeKey(storeKey)} failed authentication with ${CHECKPOINT_KEY_VARIABLE} (key id ${this.keyId}): it was altered, truncated or moved from another key.`,
        { cause: err },
      );
    }
    try {
      return unpackValue(codec, body);
    } catch (err) {
      // Authenticated, so written so by this key: a bug or a damaged disk between deflate and seal, never tampering.
      throw new VigilError(
        'STORE_CORRUPT',
        `The stored value of ${describeKey(storeKey)} is sealed as deflated but does not inflate.`,
        { cause: err },
      );
    }
  }

  private nextIv(target: Buffer, at: number): void {
    if (this.ivAt + IV_BYTES > this.ivPool.length) {
      this.ivPool = randomFillSync(Buffer.allocUnsafe(IV_POOL_BYTES));
      this.ivAt = 0;
    }
    this.ivPool.copy(target, at, this.ivAt, this.ivAt + IV_BYTES);
    this.ivAt += IV_BYTES;
  }

  /** Checks the version and key id; returns how many header bytes precede the IV in that version. */
  private assertOurs(b: Buffer, storeKey: Uint8Array): number {
    const version = b.length > VALUE_MAGIC.length ? b[VALUE_MAGIC.length] : undefined;
    const prefixBytes = version === undefined ? undefined : PREFIX_BYTES[version];
    if (version === undefined || prefixBytes === undefined) {
      throw new VigilError(
        'STORE_KEY_INVALID',
        `The stored value of ${describeKey(storeKey)} is sealed in format ${String(version)}; this build reads sealed formats ${VALUE_SEAL_VERSIONS_READ.join(' and ')}.`,
        { data: { variable: CHECKPOINT_KEY_VARIABLE, sealedVersion: version ?? null } },
      );
    }
    const sealedWith = sealedValueKeyId(b);
    if (sealedWith !== this.keyId) {
      throw new VigilError(
        'STORE_KEY_INVALID',
        `The stored value of ${describeKey(storeKey)} was sealed with another key (key id ${String(sealedWith)}) than ${CHECKPOINT_KEY_VARIABLE} (key id ${this.keyId}).`,
        { data: { variable: CHECKPOINT_KEY_VARIABLE, sealedWithKeyId: sealedWith ?? null, keyId: this.keyId } },
      );
    }
    return prefixBytes;
  }
}

// Keys hold no user text (see SUBLEVELS), so naming one in a message reveals nothing.
function describeKey(storeKey: Uint8Array): string {
  return JSON.stringify(Buffer.from(storeKey.buffer, storeKey.byteOffset, storeKey.byteLength).toString('utf8'));
}
