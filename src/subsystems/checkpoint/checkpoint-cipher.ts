/** Encryption at rest for checkpoint bodies: AES-256-GCM with a random IV per body and the checkpoint id bound as AAD. */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { VigilError } from '../../errors.js';

/**
 * A sealed body's layout (all offsets in bytes):
 *
 *     0..3   magic "VGCK"         (a gzip body starts 1f 8b, so plain and sealed bodies are told apart)
 *     4      version 1            (AES-256-GCM, 12-byte IV, 16-byte tag; a rotation scheme gets version 2)
 *     5..8   key id               (first 4 bytes of SHA-256 over a label and the key: says *which* key sealed it)
 *     9..20  IV                   (random per body)
 *     21..   ciphertext of the gzip body, then the 16-byte GCM tag
 *
 * The additional authenticated data is bytes 0..8 followed by the checkpoint id in UTF-8, so a body moved under
 * another id, or a header edited to claim another key or version, fails authentication.
 */
export const SEALED_MAGIC = Buffer.from('VGCK', 'ascii');
/** The sealed format this build writes and reads. */
export const SEALED_VERSION = 1;
const KEY_ID_BYTES = 4;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PREFIX_BYTES = SEALED_MAGIC.length + 1 + KEY_ID_BYTES;
const HEADER_BYTES = PREFIX_BYTES + IV_BYTES;
/** The bytes sealing adds to a body. */
export const SEAL_OVERHEAD_BYTES = HEADER_BYTES + TAG_BYTES;

/** The variable that holds the key, named in every error about it. */
export const CHECKPOINT_KEY_VARIABLE = 'VIGIL_CHECKPOINT_KEY';
/** What the key must look like, phrased to end `VIGIL_CHECKPOINT_KEY=… is invalid: <this>.` */
export const CHECKPOINT_KEY_ALLOWED =
  'expected 32 random bytes as 64 hex characters or as base64 (44 characters), e.g. the output of `openssl rand -hex 32`';

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
// 32 bytes are 43 base64 characters plus one "=" of padding; the URL-safe alphabet is accepted too.
const BASE64_KEY = /^[A-Za-z0-9+/]{43}=?$|^[A-Za-z0-9_-]{43}=?$/;

/** The 32 key bytes `text` encodes (64 hex characters or base64), or null when it is not such a key. */
export function decodeCheckpointKey(text: string): Buffer | null {
  const t = text.trim();
  if (HEX_KEY.test(t)) return Buffer.from(t, 'hex');
  if (!BASE64_KEY.test(t)) return null;
  const bytes = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === 32 ? bytes : null;
}

/** True when `text` is a valid `VIGIL_CHECKPOINT_KEY` (the config schema's check). */
export function isCheckpointKeyText(text: string): boolean {
  return decodeCheckpointKey(text) !== null;
}

/** True when `bytes` start with the sealed header's magic (whatever its version or key). */
export function isSealed(bytes: Uint8Array): boolean {
  return (
    bytes.length >= SEALED_MAGIC.length &&
    Buffer.from(bytes.buffer, bytes.byteOffset, SEALED_MAGIC.length).equals(SEALED_MAGIC)
  );
}

/** The key id and version a sealed body's header names (undefined fields when the body is too short to say). */
export function sealedHeader(bytes: Uint8Array): { version: number | undefined; keyId: string | undefined } {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    version: b.length > SEALED_MAGIC.length ? b[SEALED_MAGIC.length] : undefined,
    keyId: b.length >= PREFIX_BYTES ? b.subarray(SEALED_MAGIC.length + 1, PREFIX_BYTES).toString('hex') : undefined,
  };
}

/** The public fingerprint of a key: enough to tell keys apart in messages, nothing about the key itself. */
export function keyIdOf(key: Uint8Array): Buffer {
  return createHash('sha256').update('vigil checkpoint key id\0').update(key).digest().subarray(0, KEY_ID_BYTES);
}

/** Seals and opens checkpoint bodies with one key. */
export class CheckpointCipher {
  /** A KeyObject, not the bytes: Node 24 prepares raw key bytes anew for every cipher, three times slower (value-cipher.ts). */
  private readonly key: KeyObject;
  /** This key's id in hex, as sealed headers carry it. */
  readonly keyId: string;
  private readonly keyIdBytes: Buffer;

  /** `key`: the 32 raw bytes, or the variable's text (64 hex characters or base64). CONFIG_INVALID otherwise. */
  constructor(key: Uint8Array | string) {
    const bytes = typeof key === 'string' ? decodeCheckpointKey(key) : Buffer.from(key);
    if (bytes === null || bytes.length !== 32) {
      // The value itself is a secret: say how long it was, never what it was.
      const length = typeof key === 'string' ? `${key.trim().length} characters` : `${key.length} bytes`;
      throw new VigilError(
        'CONFIG_INVALID',
        `${CHECKPOINT_KEY_VARIABLE} (${length}) is invalid: ${CHECKPOINT_KEY_ALLOWED}.`,
        {
          data: { variable: CHECKPOINT_KEY_VARIABLE, value: `<hidden, ${length}>`, allowed: CHECKPOINT_KEY_ALLOWED },
        },
      );
    }
    this.key = createSecretKey(bytes);
    this.keyIdBytes = keyIdOf(bytes);
    this.keyId = this.keyIdBytes.toString('hex');
  }

  /** `plain` sealed for checkpoint `id`: header, ciphertext, tag. A fresh random IV every time. */
  seal(id: string, plain: Uint8Array): Uint8Array {
    const prefix = Buffer.concat([SEALED_MAGIC, Buffer.of(SEALED_VERSION), this.keyIdBytes]);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(prefix, id));
    const sealed = Buffer.concat([prefix, iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return new Uint8Array(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  }

  /** True when `bytes` are sealed in a format this build reads, with this key (so `open` can only fail on damage). */
  sealedWithThisKey(bytes: Uint8Array): boolean {
    const header = sealedHeader(bytes);
    return isSealed(bytes) && header.version === SEALED_VERSION && header.keyId === this.keyId;
  }

  /**
   * The plain body of sealed `bytes` stored as checkpoint `id`. CHECKPOINT_KEY_INVALID when another key sealed it,
   * CHECKPOINT_FORMAT_UNSUPPORTED for a newer sealed format, CHECKPOINT_CORRUPT when authentication fails.
   */
  open(id: string, bytes: Uint8Array, label = `Checkpoint ${id}`): Uint8Array {
    assertOpenable(bytes, label, this.keyId);
    const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (b.length < SEAL_OVERHEAD_BYTES) {
      throw new VigilError(
        'CHECKPOINT_CORRUPT',
        `${label} is sealed but only ${b.length} bytes long: it was truncated.`,
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, b.subarray(PREFIX_BYTES, HEADER_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(aad(b.subarray(0, PREFIX_BYTES), id));
    decipher.setAuthTag(b.subarray(b.length - TAG_BYTES));
    try {
      const plain = Buffer.concat([decipher.update(b.subarray(HEADER_BYTES, b.length - TAG_BYTES)), decipher.final()]);
      return new Uint8Array(plain.buffer, plain.byteOffset, plain.byteLength);
    } catch (err) {
      // The key id matched, so the key is right: the bytes were altered, cut, or belong to another checkpoint id.
      throw new VigilError(
        'CHECKPOINT_CORRUPT',
        `${label} failed authentication with ${CHECKPOINT_KEY_VARIABLE} (key id ${this.keyId}): its sealed bytes were altered, truncated or moved from another checkpoint.`,
        { cause: err },
      );
    }
  }
}

/**
 * Throws the error for a sealed body that `keyId` (undefined: no key configured) cannot open: a newer sealed format,
 * a missing key, or another key. Returns when the body names this key and this build's format.
 */
export function assertOpenable(bytes: Uint8Array, label: string, keyId: string | undefined): void {
  const header = sealedHeader(bytes);
  if (header.version !== undefined && header.version > SEALED_VERSION) {
    throw new VigilError(
      'CHECKPOINT_FORMAT_UNSUPPORTED',
      `${label} is sealed in format ${header.version}; this build reads sealed format ${SEALED_VERSION}.`,
      { data: { sealedVersion: header.version } },
    );
  }
  if (header.version !== SEALED_VERSION || header.keyId === undefined) {
    throw new VigilError('CHECKPOINT_CORRUPT', `${label} has a damaged sealed header.`);
  }
  if (keyId === undefined) {
    throw new VigilError(
      'CHECKPOINT_KEY_INVALID',
      `${label} is encrypted (key id ${header.keyId}) but ${CHECKPOINT_KEY_VARIABLE} is not set: start with the key that sealed it.`,
      {
        data: {
          vigilCode: 'CHECKPOINT_KEY_INVALID',
          variable: CHECKPOINT_KEY_VARIABLE,
          sealedWithKeyId: header.keyId,
          keyId: null,
        },
      },
    );
  }
  if (header.keyId !== keyId) {
    throw new VigilError(
      'CHECKPOINT_KEY_INVALID',
      `${label} was sealed with another key (key id ${header.keyId}) than ${CHECKPOINT_KEY_VARIABLE} (key id ${keyId}): start with the key that sealed it.`,
      {
        data: {
          vigilCode: 'CHECKPOINT_KEY_INVALID',
          variable: CHECKPOINT_KEY_VARIABLE,
          sealedWithKeyId: header.keyId,
          keyId,
        },
      },
    );
  }
}

function aad(prefix: Uint8Array, id: string): Buffer {
  return Buffer.concat([prefix, Buffer.from(id, 'utf8')]);
}
