/** `checkpoint.*`: list, create, get, restore (with its confirmation step), export and import. */
import type { RpcHandlers } from '../rpc-router.js';

type CheckpointMethod =
  | 'checkpoint.list'
  | 'checkpoint.create'
  | 'checkpoint.get'
  | 'checkpoint.restore'
  | 'checkpoint.export'
  | 'checkpoint.import';

/** The checkpoint method group. */
export const checkpointMethods: RpcHandlers<CheckpointMethod> = {
  'checkpoint.list': (params, { runtime }) => runtime.listCheckpoints(params),
  'checkpoint.create': (_params, { runtime }) => runtime.createCheckpoint(),
  'checkpoint.get': (params, { runtime }) => runtime.getCheckpoint(params.id),
  // The runtime raises -32001 (with {id, beatCount, createdAt}) without confirm and -32009 while a restore runs.
  'checkpoint.restore': (params, { runtime }) =>
    runtime.restoreCheckpoint(params.id, params.confirm === undefined ? {} : { confirm: params.confirm }),
  'checkpoint.export': (params, { runtime }) => runtime.exportCheckpoint(params.id),
  'checkpoint.import': (params, { runtime }) => runtime.importCheckpoint(params.document),
};
