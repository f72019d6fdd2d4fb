/** Every generated block of the docs, by page: the one list `scripts/docs.ts` writes and the sync test checks. */
import { renderConfigurationTable } from './configuration-page.js';
import { renderErrorCodes, renderTurnEndingCodes } from './error-codes-page.js';
import { renderEvents } from './events-page.js';
import type { GeneratedBlock } from './generated-block.js';
import { renderMetrics } from './metrics-page.js';
import { renderRpcMethods } from './rpc-methods-page.js';

export const GENERATED_BLOCKS: readonly GeneratedBlock[] = [
  { page: 'docs/configuration.md', name: 'variables', render: renderConfigurationTable },
  { page: 'docs/reference/rpc-methods.md', name: 'methods', render: renderRpcMethods },
  { page: 'docs/reference/events.md', name: 'events', render: renderEvents },
  { page: 'docs/reference/metrics.md', name: 'metrics', render: renderMetrics },
  { page: 'docs/reference/error-codes.md', name: 'error-codes', render: renderErrorCodes },
  { page: 'docs/reference/error-codes.md', name: 'turn-endings', render: renderTurnEndingCodes },
];
