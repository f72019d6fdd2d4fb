#!/usr/bin/env node
// The `vigil` binary: runs the compiled package (dist/, built by `npm run build`, which `npm ci` runs as `prepare`).
const { main } = await import('../dist/cli.js');
// Exit explicitly: a stopped daemon must not linger on a stray handle.
process.exit(await main(process.argv.slice(2)));
