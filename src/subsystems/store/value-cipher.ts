/** Sealing of every value the store writes (AES-256-GCM under a key derived once from VIGIL_CHECKPOINT_KEY), with the stored key bound as AAD. */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { VigilError } from '../../errors.js';
import { CHECKPOINT_KEY_VARIABLE, decodeCheckpointKey, keyIdOf } from '../checkpoint/checkpoint-cipher.js';

/**
 * A sealed value's layout (offsets in bytes):
 *
 *     0..1   magic 00 53          (no plain value Vigil stores starts with a NUL: JSON text, gzip 1f 8b, "VGCK")
 *     2      version 1            (AES-256-GCM, 12-byte IV, 16-byte tag)
 *     3..6   key id               (the same fingerprint as a sealed checkpoint's: which key sealed it)
 *     7..18  IV                   (random per value)
 *     19..   ciphertext, then the 16-byte GCM tag
 *
 * The AAD is bytes 0..6 followed by the value's LevelDB key (sublevel prefix included), so a value moved under
 * another key, or another sublevel, fails authentication.
 */
export const VALUE_MAGIC = Buffer.from([0x00, 0x53]);
/** The sealed value format this build writes and reads. */
export const VALUE_SEAL_VERSION = 1;
const KEY_ID_BYTES = 4;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PREFIX_BYTES = VALUE_MAGIC.length + 1 + KEY_ID_BYTES;
const HEADER_BYTES = PREFIX_BYTES + IV_BYTES;
/** The bytes sealing adds to every value. */
export const VALUE_SEAL_OVERHEAD_BYTES = HEADER_BYTES + TAG_BYTES;

/** True when `bytes` start with a sealed value's magic (whatever its version or key). */
export function isSealedValue(bytes: Uint8Array): boolean {
  return bytes.length >= VALUE_MAGIC.length && bytes[0] === VALUE_MAGIC[0] && bytes[1] === VALUE_MAGIC[1];
}

/** The key id (hex) a sealed value names, or undefined when it is too short to say. */
export function sealedValueKeyId(bytes: Uint8Array): string | undefined {
  if (bytes.length < PREFIX_BYTES) return undefined;
  return Buffer.from(bytes.buffer, bytes.byteOffset + VALUE_MAGIC.length + 1, KEY_ID_BYTES).toString('hex');
}

/**
 * Seals and opens stored values with one key. The AES key is derived with HKDF once, at construction, so the
 * per-value cost is one AES-GCM pass (no key derivation per write), and values and checkpoint bodies never share a key.
 */
export class ValueCipher {
  private readonly key: Buffer;
  private readonly prefix: Buffer;
  /** The key's public fingerprint in hex (the same id checkpoint bodies carry). */
  readonly keyId: string;

  /** `key`: the variable's text (64 hex characters or base64) or its 32 raw bytes. CONFIG_INVALID otherwise. */
  constructor(key: string | Uint8Array) {
    const raw = typeof key === 'string' ? decodeCheckpointKey(key) : Buffer.from(key);
    if (raw === null || raw.length !== 32) {
      throw new VigilError('CONFIG_INVALID', `${CHECKPOINT_KEY_VARIABLE} is invalid: expected 32 bytes as 64 hex characters or base64.`, {
        data: { variable: CHECKPOINT_KEY_VARIABLE },
      });
    }
    this.key = Buffer.from(hkdfSync('sha256', raw, Buffer.alloc(0), 'vigil store value seal v1', 32));
    const keyIdBytes = keyIdOf(raw);
    this.keyId = keyIdBytes.toString('hex');
    this.prefix = Buffer.concat([VALUE_MAGIC, Buffer.of(VALUE_SEAL_VERSION), keyIdBytes]);
  }

  /** `plain` sealed for the stored key `storeKey`: header, ciphertext, tag; a fresh random IV every time. */
  seal(storeKey: Uint8Array, plain: Uint8Array): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.concat([this.prefix, storeKey]));
    const head = cipher.update(plain);
    const tail = cipher.final();
    return Buffer.concat([this.prefix, iv, head, tail, cipher.getAuthTag()]);
  }

  /**
   * The plain value of sealed `bytes` stored under `storeKey`. STORE_KEY_INVALID when another key sealed it (or a
   * newer format), STORE_CORRUPT when it fails authentication (altered, cut, or moved from another key).
   */
  open(storeKey: Uint8Array, bytes: Uint8Array): Buffer {
    const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.assertOurs(b, storeKey);
    if (b.length < VALUE_SEAL_OVERHEAD_BYTES) {
      throw new VigilError('STORE_CORRUPT', `The stored value of ${describeKey(storeKey)} is sealed but only ${b.length} bytes long: it was truncated.`);
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, b.subarray(PREFIX_BYTES, HEADER_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.concat([b.subarray(0, PREFIX_BYTES), storeKey]));
    decipher.setAuthTag(b.subarray(b.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(b.subarray(HEADER_BYTES, b.length - TAG_BYTES)), decipher.final()]);
    } catch (err) {
      throw new VigilError(
        'STORE_CORRUPT',
        `The stored value of ${describeKey(storeKey)} failed authentication with ${CHECKPOINT_KEY_VARIABLE} (key id ${this.keyId}): it was altered, truncated or moved from another key.`,
        { cause: err },
      );
    }
  }

  private assertOurs(b: Buffer, storeKey: Uint8Array): void {
    const version = b.length > VALUE_MAGIC.length ? b[VALUE_MAGIC.length] : undefined;
    if (version !== VALUE_SEAL_VERSION) {
      throw new VigilError('STORE_KEY_INVALID', `The stored value of ${describeKey(storeKey)} is sealed in format ${String(version)}; this build reads sealed format ${VALUE_SEAL_VERSION}.`, {
        data: { variable: CHECKPOINT_KEY_VARIABLE, sealedVersion: version ?? null },
      });
    }
    const sealedWith = sealedValueKeyId(b);
    if (sealedWith !== this.keyId) {
      throw new VigilError(
        'STORE_KEY_INVALID',
        `The stored value of ${describeKey(storeKey)} was sealed with another key (key id ${String(sealedWith)}) than ${CHECKPOINT_KEY_VARIABLE} (key id ${this.keyId}).`,
        { data: { variable: CHECKPOINT_KEY_VARIABLE, sealedWithKeyId: sealedWith ?? null, keyId: this.keyId } },
      );
    }
  }
}

// Keys hold no user text (see SUBLEVELS), so naming one in a message reveals nothing.
function describeKey(storeKey: Uint8Array): string {
  return JSON.stringify(Buffer.from(storeKey.buffer, storeKey.byteOffset, storeKey.byteLength).toString('utf8'));
}
