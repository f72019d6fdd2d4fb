/** The memory index's module (and MiniSearch), loaded at the first memory read back or kept, once only. */
import { loadOnce } from '../../shared/load-once.js';

export const loadMemoryIndex = loadOnce(() => import('./memory-index.js'));
