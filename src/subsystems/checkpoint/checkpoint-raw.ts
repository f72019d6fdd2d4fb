/**
 * A checkpoint as stored, undecoded: the two halves LevelDB holds, checked against each other and the index schema,
 * and a checkpoint encoded into them for a save.
 */
import { VigilError, describeError } from '../../errors.js';
import {
  CheckpointMetaSchema,
  CognitiveCheckpointSchema,
  type CheckpointMeta,
  type CognitiveCheckpoint,
} from '../../protocol/checkpoint-format.schema.js';
import { summariseIssues } from '../../protocol/zod-issues.js';
import type { CheckpointCipher } from './checkpoint-cipher.js';
import { encodeCheckpoint, type CheckpointZip } from './checkpoint.codec.js';

/** A checkpoint as stored: its compressed (maybe sealed) body and its index entry. */
export interface RawCheckpoint {
  bytes: Uint8Array;
  meta: CheckpointMeta;
}

/** The halves read for `id`: CHECKPOINT_NOT_FOUND when both are missing, CHECKPOINT_CORRUPT when one is or the entry is invalid. */
export function rawCheckpointOf(id: string, bytes: Uint8Array | undefined, meta: unknown): RawCheckpoint {
  if (bytes === undefined && meta === undefined) {
    throw new VigilError('CHECKPOINT_NOT_FOUND', `No checkpoint with id ${id} exists.`, { data: { id } });
  }
  if (bytes === undefined)
    throw new VigilError('CHECKPOINT_CORRUPT', `Checkpoint ${id} has an index entry but no body.`);
  if (meta === undefined) throw new VigilError('CHECKPOINT_CORRUPT', `Checkpoint ${id} has a body but no index entry.`);
  const parsed = CheckpointMetaSchema.safeParse(meta);
  if (!parsed.success) {
    throw new VigilError(
      'CHECKPOINT_CORRUPT',
      `Checkpoint ${id} has an invalid index entry: ${summariseIssues(parsed.error)}.`,
    );
  }
  return { bytes, meta: parsed.data };
}

/** An index entry read as text; undefined when it is not JSON or not an entry (a listing skips it, a load reports it). */
export function indexEntryOf(text: string): CheckpointMeta | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
  const meta = CheckpointMetaSchema.safeParse(value);
  return meta.success ? meta.data : undefined;
}

/**
 * `cp` as a save stores it: checked against the schema, compressed (sealed when `cipher` is given), with its index
 * entry; CHECKPOINT_SAVE_FAILED when it does not match or cannot be encoded.
 */
export async function encodeRawCheckpoint(
  cp: CognitiveCheckpoint,
  cipher: CheckpointCipher | null,
  zip: CheckpointZip,
): Promise<RawCheckpoint> {
  const checked = CognitiveCheckpointSchema.safeParse(cp);
  if (!checked.success) {
    throw new VigilError(
      'CHECKPOINT_SAVE_FAILED',
      `Checkpoint ${cp.id} does not match the schema: ${summariseIssues(checked.error)}.`,
    );
  }
  let bytes: Uint8Array;
  try {
    bytes = await encodeCheckpoint(cp, { cipher }, zip);
  } catch (err) {
    throw saveFailed(cp.id, 'could not be encoded', err);
  }
  const meta: CheckpointMeta = {
    id: cp.id,
    createdAt: cp.createdAt,
    beatCount: cp.beatCount,
    sizeBytes: bytes.byteLength,
    formatVersion: cp.formatVersion,
  };
  return { bytes, meta };
}

/** CHECKPOINT_SAVE_FAILED for checkpoint `id`: `what` went wrong, and why. */
export function saveFailed(id: string, what: string, err: unknown): VigilError {
  return new VigilError(
    'CHECKPOINT_SAVE_FAILED',
    `Checkpoint ${id} ${what}: ${describeError(err).replace(/\.$/, '')}.`,
    {
      cause: err,
    },
  );
}
