import { describe } from 'vitest';
import { itKeepsEveryInvariant, itReplaysExactly, SEED_HALVES } from './sim-seeds.js';

describe('the deterministic simulator, seeds 1 to 100', () => {
  itReplaysExactly(7);
  itKeepsEveryInvariant(...SEED_HALVES.first);
});
