/** Long-term memory: `memory.search`, `memory.forget`. */
import type { RpcHandlers } from '../rpc-router.js';

type MemoryMethod = 'memory.search' | 'memory.forget';

/** The long-term memory method group. */
export const memoryMethods: RpcHandlers<MemoryMethod> = {
  'memory.search': (params, { runtime }) => runtime.searchMemory(params),
  'memory.forget': (params, { runtime }) => runtime.forgetMemory(params.id),
};
