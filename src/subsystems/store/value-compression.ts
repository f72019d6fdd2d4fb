/**
 * Compression of a stored value before it is sealed: ciphertext does not compress, so LevelDB's snappy can no longer
 * shrink a sealed store; each value large enough to pay is deflated on its own first, and the sealed header says so.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';

/** How the sealed plaintext is encoded; the byte sits in the sealed header and is authenticated with it. */
export const VALUE_CODEC = {
  /** The value's bytes as they are. */
  stored: 0,
  /** Raw deflate (RFC 1951) of the value's bytes. */
  deflateRaw: 1,
} as const;
export type ValueCodec = (typeof VALUE_CODEC)[keyof typeof VALUE_CODEC];

/**
 * Values shorter than this are stored as they are. Every deflate costs a fixed ~13 µs of zlib set-up (an inflate ~6),
 * three times the AES-GCM pass over a small value, and a turn writes ~20 values: deflating each one of 192 bytes or
 * more doubled what sealing adds to a turn's CPU (measured: +1.4 against +0.7 ms a turn on a loaded machine). So
 * only large values (summaries, traces, tool results, big events) are tried, and conversation messages from a
 * smaller size (below).
 */
export const COMPRESS_MIN_BYTES = 512;
/**
 * The threshold for the conversation log and its archive: what a long-lived data dir is mostly made of, two values a
 * turn, and ordinary sentences deflate to ~60 %.
 */
export const CONVERSATION_COMPRESS_MIN_BYTES = 192;
// Kept compressed only when it saves at least this share: otherwise every read pays an inflate for nothing.
const MIN_SAVING = 1 / 8;
// Level 1: small values compress about as well at 1 as at 6 (measured: 0.62 against 0.61), and faster.
const DEFLATE_LEVEL = 1;
// zlib's output buffer per step: sized to the value, so a small one costs no 16 KiB allocation and a large one few steps.
const MIN_CHUNK = 1024;
const MAX_CHUNK = 64 * 1024;
// An inflated value may grow at most this many times its compressed size (deflate's own bound is ~1032×).
const MAX_INFLATE_RATIO = 1100;

/** The encoding to seal `plain` with, and the bytes to seal: deflated when it is `minBytes` or longer and that pays. */
export function packValue(plain: Uint8Array, minBytes = COMPRESS_MIN_BYTES): { codec: ValueCodec; body: Uint8Array } {
  if (plain.byteLength < minBytes || isCompressedAlready(plain)) return { codec: VALUE_CODEC.stored, body: plain };
  const deflated = deflateRawSync(plain, {
    level: DEFLATE_LEVEL,
    chunkSize: chunkFor(plain.byteLength),
    ...windowFor(plain.byteLength),
  });
  if (deflated.byteLength > plain.byteLength * (1 - MIN_SAVING)) return { codec: VALUE_CODEC.stored, body: plain };
  return { codec: VALUE_CODEC.deflateRaw, body: deflated };
}

/**
 * zlib's window and hash sized to the value: most of a small deflate's fixed cost is setting up the default 32 KiB
 * window and 64 Ki-entry hash (measured on a 241-byte message: 12.8 µs at the defaults, 8.5 µs sized, same output).
 * A window no smaller than the value loses no match; inflate's default window reads any smaller one.
 */
function windowFor(byteLength: number): { windowBits: number; memLevel: number } {
  const windowBits = Math.min(15, Math.max(10, Math.ceil(Math.log2(byteLength))));
  return { windowBits, memLevel: windowBits <= 12 ? 4 : 8 };
}

/**
 * Bytes deflate cannot shrink, known by their first bytes: a gzip stream (a checkpoint body, 1f 8b) and a sealed
 * checkpoint body ("VGCK"). Trying would cost ~20 µs a kilobyte on every checkpoint save for nothing.
 */
function isCompressedAlready(plain: Uint8Array): boolean {
  return (
    (plain[0] === 0x1f && plain[1] === 0x8b) ||
    (plain[0] === 0x56 && plain[1] === 0x47 && plain[2] === 0x43 && plain[3] === 0x4b)
  );
}

/** True when this build reads `codec`. */
export function isKnownCodec(codec: number): codec is ValueCodec {
  return codec === VALUE_CODEC.stored || codec === VALUE_CODEC.deflateRaw;
}

/** The value's bytes from an opened (authenticated) body. Throws zlib's error when a deflated body does not inflate. */
export function unpackValue(codec: ValueCodec, body: Buffer): Buffer {
  if (codec === VALUE_CODEC.stored) return body;
  return inflateRawSync(body, {
    chunkSize: chunkFor(body.byteLength * 4),
    maxOutputLength: Math.max(MIN_CHUNK, body.byteLength * MAX_INFLATE_RATIO),
  });
}

function chunkFor(bytes: number): number {
  return Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, bytes));
}
