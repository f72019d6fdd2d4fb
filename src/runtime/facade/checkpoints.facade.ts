/** The facade's checkpoint area: list, create, get, export and import; restore lives in its own file. */
import type { CognitiveCheckpoint } from '../../protocol/checkpoint-format.schema.js';
import type { CheckpointExport, ImportResult } from '../../protocol/checkpoint-transfer.schema.js';
import type { CheckpointCreated, CheckpointSummary } from '../../protocol/checkpoints.schema.js';
import { exportCheckpoint, importCheckpoint, type TransferStores } from '../checkpoint-transfer.js';
import { iso, type RuntimeCore } from '../runtime-core.js';

/** `checkpoint.list`: newest first, from the index only. */
export async function listCheckpoints(
  core: RuntimeCore,
  options: { limit?: number } = {},
): Promise<CheckpointSummary[]> {
  const metas = await core.parts.store.list(options.limit === undefined ? {} : { limit: options.limit });
  return metas.map((meta) => ({ ...meta, createdAt: iso(meta.createdAt) }));
}

/** `checkpoint.create`: taken at the next beat boundary, resolved once stored. */
export function createCheckpoint(core: RuntimeCore): Promise<CheckpointCreated> {
  core.assertRunning();
  const saved = core.parts.checkpoints.request();
  core.actor.send({ type: 'CHECKPOINT_NOW' });
  return saved;
}

/** `checkpoint.get`: the whole decoded checkpoint. */
export function getCheckpoint(core: RuntimeCore, id: string): Promise<CognitiveCheckpoint> {
  return core.parts.store.load(id);
}

/** `checkpoint.export`: the portable document of checkpoint `id` with its conversation. */
export function exportOne(core: RuntimeCore, id: string): Promise<CheckpointExport> {
  return exportCheckpoint(transferStores(core), id);
}

/** `checkpoint.import`: stores an export document under a new id; restore that id to run it. */
export function importOne(core: RuntimeCore, document: unknown): Promise<ImportResult> {
  return importCheckpoint(transferStores(core), document);
}

function transferStores(core: RuntimeCore): TransferStores {
  const { store, conversation, clock, log, summaries, memory } = core.parts;
  return { store, conversation, clock, log, summaries, memory };
}
