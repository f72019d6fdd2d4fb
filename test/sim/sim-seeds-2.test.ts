import { describe } from 'vitest';
import {
  FOUND_SEEDS,
  itKeepsEveryInvariant,
  itKeepsEveryInvariantOn,
  itReplaysExactly,
  SEED_HALVES,
} from './sim-seeds.js';

describe('the deterministic simulator, seeds 101 to 200', () => {
  itReplaysExactly(103);
  itKeepsEveryInvariant(...SEED_HALVES.second);
  itKeepsEveryInvariantOn(FOUND_SEEDS);
});
