/**
 * Embedding vectors as stored and compared: Float32 values, little-endian, 4 bytes each (a 768-dimension vector is
 * 3 KB), normalised to unit length when made so a dot product is their cosine.
 */
import { VigilError } from '../../errors.js';

/** `vector` scaled to unit length (a zero vector stays zero: it is similar to nothing). */
export function normalised(vector: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(vector);
  let sum = 0;
  for (const value of out) sum += value * value;
  const norm = Math.sqrt(sum);
  if (norm > 0 && Number.isFinite(norm)) for (let i = 0; i < out.length; i += 1) out[i] = (out[i] ?? 0) / norm;
  return out;
}

/** The stored bytes of `vector`: its values as little-endian Float32, whatever the machine's byte order. */
export function encodeVector(vector: Float32Array): Uint8Array {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i += 1) view.setFloat32(i * 4, vector[i] ?? 0, true);
  return bytes;
}

/** The vector stored as `bytes`; STORE_CORRUPT when they cannot be one (empty, a length not a multiple of 4, NaN). */
export function decodeVector(bytes: Uint8Array): Float32Array {
  if (bytes.byteLength === 0 || bytes.byteLength % 4 !== 0) {
    throw new VigilError('STORE_CORRUPT', `A stored embedding of ${bytes.byteLength} bytes is not a Float32 vector.`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < vector.length; i += 1) {
    const value = view.getFloat32(i * 4, true);
    if (!Number.isFinite(value))
      throw new VigilError('STORE_CORRUPT', 'A stored embedding holds a value that is not a number.');
    vector[i] = value;
  }
  return vector;
}

/** The dot product of two vectors of the same length (their cosine, when both are unit length); 0 when lengths differ. */
export function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += (a[i] as number) * (b[i] as number);
  return sum;
}
