/**
 * The generated parts of the docs and `.env.example`: `node --import tsx scripts/docs.ts` lists what differs from what
 * the code renders today (exit 1 if anything does); `--write` rewrites it. test/docs/generated.test.ts and
 * test/config.test.ts run the same comparisons.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderEnvExample } from '../src/config.js';
import { documentedBlock, expectedBlock, writeBlock } from './docs/generated-block.js';
import { GENERATED_BLOCKS } from './docs/pages.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function main(argv: string[]): number {
  const write = argv.includes('--write');
  let stale = 0;
  for (const block of GENERATED_BLOCKS) {
    if (write) {
      if (writeBlock(ROOT, block)) console.log(`rewrote ${block.page} (${block.name})`);
    } else if (documentedBlock(ROOT, block) !== expectedBlock(block)) {
      stale++;
      console.error(`stale: ${block.page} (${block.name}); run node --import tsx scripts/docs.ts --write`);
    }
  }
  const envExample = join(ROOT, '.env.example');
  if (readFileSync(envExample, 'utf8') !== renderEnvExample()) {
    if (write) {
      writeFileSync(envExample, renderEnvExample());
      console.log('rewrote .env.example');
    } else {
      stale++;
      console.error('stale: .env.example; run node --import tsx scripts/docs.ts --write');
    }
  }
  return stale === 0 ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
