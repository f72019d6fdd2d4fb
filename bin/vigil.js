#!/usr/bin/env node
// The `vigil` binary: runs the compiled package (dist/, built by `npm run build`, which `npm ci` runs as `prepare`).
// `vigil run` and `vigil mcp` (which an MCP host starts at every session) load the same CLI from its start-up bundle
// (dist/bundle/, a few large files instead of ~500 small ones: docs/performance.md, "Start-up"); every other command
// runs dist/cli.js, which loads only that command's modules.
import { existsSync } from 'node:fs';

const cli = new URL(
  process.argv[2] === 'run' || process.argv[2] === 'mcp' ? '../dist/bundle/cli.js' : '../dist/cli.js',
  import.meta.url,
);
if (!existsSync(cli)) {
  // A checkout installed with --ignore-scripts, or dist/ deleted: say what to do rather than print a module error.
  process.stderr.write('vigil: the compiled package (dist/) is missing; run `npm run build` in the checkout.\n');
  process.exit(1);
}
/** @type {unknown} */
let loaded;
try {
  loaded = await import(cli.href);
} catch (err) {
  // A half-written or stale build: one line saying what to do (the stack with VIGIL_LOG_LEVEL=debug, as for any failure).
  const debug = ['debug', 'trace'].includes((process.env.VIGIL_LOG_LEVEL ?? '').trim().toLowerCase());
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(
    `vigil: the compiled package (dist/) does not load (${message}); run \`npm run build\` in the checkout.\n`,
  );
  if (debug && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  process.exit(1);
}
const { runVigil } = /** @type {{ runVigil: (argv: string[]) => Promise<number> }} */ (loaded);
// Exit explicitly: a stopped daemon must not linger on a stray handle.
process.exit(await runVigil(process.argv.slice(2)));
