/** A checkpoint as stored, undecoded: the two halves LevelDB holds, checked against each other and the index schema. */
import { VigilError } from '../../errors.js';
import { CheckpointMetaSchema, type CheckpointMeta } from '../../protocol/checkpoint-format.schema.js';
import { summariseIssues } from '../../protocol/zod-issues.js';

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
  if (bytes === undefined) throw new VigilError('CHECKPOINT_CORRUPT', `Checkpoint ${id} has an index entry but no body.`);
  if (meta === undefined) throw new VigilError('CHECKPOINT_CORRUPT', `Checkpoint ${id} has a body but no index entry.`);
  const parsed = CheckpointMetaSchema.safeParse(meta);
  if (!parsed.success) {
    throw new VigilError('CHECKPOINT_CORRUPT', `Checkpoint ${id} has an invalid index entry: ${summariseIssues(parsed.error)}.`);
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
