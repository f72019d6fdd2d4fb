#!/usr/bin/env node
// The `vigil` binary: loads the TypeScript sources through tsx, so the checkout runs without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
// Exit explicitly: a stopped daemon must not linger on a stray handle.
process.exit(await main(process.argv.slice(2)));
