import { describe } from 'vitest';
import {
  CHANNEL_FOUND_SEEDS,
  FOUND_SEEDS,
  itKeepsEveryInvariant,
  itKeepsEveryInvariantOn,
  itReplaysExactly,
  SEED_HALVES,
} from './sim-seeds.js';

describe('the deterministic simulator, seeds 101 to 200', () => {
  itReplaysExactly(103);
  itKeepsEveryInvariant(...SEED_HALVES.second);
  itKeepsEveryInvariantOn(FOUND_SEEDS, { channel: false });
  itKeepsEveryInvariantOn(CHANNEL_FOUND_SEEDS);
});
