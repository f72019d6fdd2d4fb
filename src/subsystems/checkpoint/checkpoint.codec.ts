/** A checkpoint's stored bytes: gzip-compressed JSON (on zlib's thread pool, so the heartbeat never stalls), sealed when a key is set. */
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { VigilError, describeError, isVigilError } from '../../errors.js';
import { assertOpenable, isSealed, type CheckpointCipher } from './checkpoint-cipher.js';
import { migrateCheckpoint, type Migrate } from './checkpoint.migrations.js';
import { summariseIssues } from '../../protocol/zod-issues.js';
import { CognitiveCheckpointSchema, type CognitiveCheckpoint } from '../../protocol/checkpoint-format.schema.js';

/** How checkpoint bodies are compressed and decompressed. */
export interface CheckpointZip {
  gzip(data: Buffer): Promise<Buffer>;
  gunzip(data: Uint8Array): Promise<Buffer>;
}

/** zlib on its thread pool: the work runs off the event loop (a simulation that must replay exactly passes a synchronous one). */
export const THREAD_POOL_ZIP: CheckpointZip = { gzip: promisify(gzip), gunzip: promisify(gunzip) };

/** How stored bytes are sealed and opened: the store's cipher, or null when bodies are stored plain. */
export interface SealOptions {
  cipher: CheckpointCipher | null;
}

/**
 * Serialises and compresses a checkpoint (async zlib: the work runs off the event loop), then seals it for its id
 * when a cipher is given. Compression comes first: ciphertext does not compress.
 */
export async function encodeCheckpoint(
  cp: CognitiveCheckpoint,
  seal: SealOptions = { cipher: null },
  zip: CheckpointZip = THREAD_POOL_ZIP,
): Promise<Uint8Array> {
  const compressed = await zip.gzip(Buffer.from(JSON.stringify(cp), 'utf8'));
  const plain = new Uint8Array(compressed.buffer, compressed.byteOffset, compressed.byteLength);
  return seal.cipher === null ? plain : seal.cipher.seal(cp.id, plain);
}

/**
 * The gzip body inside stored `bytes`: sealed bytes are opened with `seal.cipher` for checkpoint `id`, plain ones
 * (written before a key was set) pass through. CHECKPOINT_KEY_INVALID when the key is missing or another one.
 */
export function unsealCheckpoint(
  bytes: Uint8Array,
  id: string,
  seal: SealOptions,
  label = `Checkpoint ${id}`,
): Uint8Array {
  if (!isSealed(bytes)) return bytes;
  if (seal.cipher === null) {
    assertOpenable(bytes, label, undefined);
    // assertOpenable always throws without a key; this only satisfies the type checker.
    throw new VigilError('INTERNAL', `${label} is sealed and no key is set.`);
  }
  return seal.cipher.open(id, bytes, label);
}

/**
 * Opens (when sealed), decompresses, parses, migrates and validates stored bytes. Every failure is CHECKPOINT_CORRUPT
 * naming the step, except a format newer than this build's (CHECKPOINT_FORMAT_UNSUPPORTED) and a sealed body the
 * key cannot open (CHECKPOINT_KEY_INVALID). `label` starts the error messages (the store passes `Checkpoint <id>`);
 * `sealed` gives the cipher and the id the body is stored under (sealed bytes are refused without it).
 */
export async function decodeCheckpoint(
  bytes: Uint8Array,
  migrate: Migrate = migrateCheckpoint,
  label = 'The checkpoint',
  sealed: SealOptions & { id: string } = { cipher: null, id: '' },
  zip: CheckpointZip = THREAD_POOL_ZIP,
): Promise<CognitiveCheckpoint> {
  const plain = unsealCheckpoint(bytes, sealed.id, sealed, label);
  let text: string;
  try {
    text = (await zip.gunzip(plain)).toString('utf8');
  } catch (err) {
    throw corrupt(label, 'failed to decompress', err);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw corrupt(label, 'is not valid JSON', err);
  }
  let migrated: unknown;
  try {
    migrated = migrate(raw);
  } catch (err) {
    if (isVigilError(err, 'CHECKPOINT_FORMAT_UNSUPPORTED')) {
      throw new VigilError(err.code, `${label} cannot be read: ${err.message}`, { cause: err, data: err.data });
    }
    throw corrupt(label, 'failed to migrate', err);
  }
  const parsed = CognitiveCheckpointSchema.safeParse(migrated);
  if (!parsed.success)
    throw corrupt(label, 'does not match the checkpoint schema', new Error(summariseIssues(parsed.error)));
  return parsed.data;
}

function corrupt(label: string, step: string, err: unknown): VigilError {
  return new VigilError('CHECKPOINT_CORRUPT', `${label} ${step}: ${describeError(err).replace(/\.$/, '')}.`, {
    cause: err,
  });
}
