#!/usr/bin/env node
// The `vigil` binary: runs the compiled package (dist/, built by `npm run build`, which `npm ci` runs as `prepare`).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  // A checkout installed with --ignore-scripts, or dist/ deleted: say what to do rather than print a module error.
  process.stderr.write('vigil: the compiled package (dist/) is missing; run `npm run build` in the checkout.\n');
  process.exit(1);
}
const { main } = await import(cli.href);
// Exit explicitly: a stopped daemon must not linger on a stray handle.
process.exit(await main(process.argv.slice(2)));
