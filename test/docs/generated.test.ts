/** The generated parts of the docs are what the code renders today (`node --import tsx scripts/docs.ts --write` redraws them). */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { documentedBlock, expectedBlock } from '../../scripts/docs/generated-block.js';
import { GENERATED_BLOCKS } from '../../scripts/docs/pages.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('generated docs', () => {
  it.each(GENERATED_BLOCKS.map((b) => [`${b.page} (${b.name})`, b] as const))('%s matches the code', (_name, block) => {
    expect(documentedBlock(ROOT, block)).toBe(expectedBlock(block));
  });

  it('describes every event type and every error code', () => {
    const described = GENERATED_BLOCKS.filter((b) => ['events', 'error-codes', 'turn-endings'].includes(b.name));
    const missing = described.flatMap((block) =>
      block
        .render()
        .split('\n')
        .filter((line) => /^\| `[^`]+` \|/.test(line) && / \|\s*\|$/.test(line))
        .map((line) => `${block.page}: ${line.slice(0, 60)}`),
    );
    expect(missing).toEqual([]);
  });
});
