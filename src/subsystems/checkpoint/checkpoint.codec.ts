/** A checkpoint's stored bytes: gzip-compressed JSON, compressed and decompressed on zlib's thread pool so the heartbeat never stalls. */
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { ZodError } from 'zod';
import { VigilError, describeError, isVigilError } from '../../errors.js';
import { migrateCheckpoint, type Migrate } from './checkpoint.migrations.js';
import { CognitiveCheckpointSchema, type CognitiveCheckpoint } from './checkpoint.schema.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** Serialises and compresses a checkpoint (async zlib: the work runs off the event loop). */
export async function encodeCheckpoint(cp: CognitiveCheckpoint): Promise<Uint8Array> {
  const compressed = await gzipAsync(Buffer.from(JSON.stringify(cp), 'utf8'));
  return new Uint8Array(compressed.buffer, compressed.byteOffset, compressed.byteLength);
}

/**
 * Decompresses, parses, migrates and validates stored bytes. Every failure is CHECKPOINT_CORRUPT naming the
 * step, except a format newer than this build's, which stays CHECKPOINT_FORMAT_UNSUPPORTED. `label` starts
 * the error messages (the store passes `Checkpoint <id>`).
 */
export async function decodeCheckpoint(
  bytes: Uint8Array,
  migrate: Migrate = migrateCheckpoint,
  label = 'The checkpoint',
): Promise<CognitiveCheckpoint> {
  let text: string;
  try {
    text = (await gunzipAsync(bytes)).toString('utf8');
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
  if (!parsed.success) throw corrupt(label, 'does not match the checkpoint schema', new Error(summariseIssues(parsed.error)));
  return parsed.data;
}

/** A short one-line account of a schema failure: the first few issues with their paths. */
export function summariseIssues(error: ZodError): string {
  const shown = error.issues.slice(0, 3).map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  const more = error.issues.length > shown.length ? ` (and ${error.issues.length - shown.length} more)` : '';
  return shown.join('; ') + more;
}

function corrupt(label: string, step: string, err: unknown): VigilError {
  return new VigilError('CHECKPOINT_CORRUPT', `${label} ${step}: ${describeError(err).replace(/\.$/, '')}.`, { cause: err });
}
