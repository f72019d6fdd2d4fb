// The daemon's start-up bundle: esbuild bundles the compiled CLI (dist/cli.js, as tsc emitted it) into dist/bundle/,
// which `vigil run` and `vigil mcp` load instead of resolving ~500 modules one by one (docs/performance.md, "Start-up").
import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * Where the bundle goes. Two levels below the package root, like every compiled module that finds a packaged file by
 * `import.meta.url` (`../../package.json`, `../../identity/`, `../../dist/gateway/dashboard/`): from here those paths
 * name the same files.
 */
export const DAEMON_BUNDLE_DIR = 'dist/bundle';

/**
 * What stays a package import, loaded from node_modules as before:
 * - classic-level: its native binding is found next to its own files;
 * - pino: it finds its transport worker by path;
 * - the model SDKs and OpenTelemetry's, loaded only when configured, so a plain boot still never reads them, and
 *   OpenTelemetry's API keeps one copy: its context keys are per copy, and the SDK's copy must see Vigil's spans;
 * (the MCP SDK is bundled: `vigil mcp`, started by a host at every session, loads it at once, and it stays in chunks
 * that only that command and a daemon with MCP servers import);
 * - ws's optional native helpers, which it requires inside a try and does without.
 */
const EXTERNAL = [
  'classic-level',
  'pino',
  '@anthropic-ai/sdk',
  'openai',
  '@opentelemetry/*',
  'bufferutil',
  'utf-8-validate',
];

/**
 * Node's built-ins whose ESM namespace costs a module of its own: importing one as ESM builds its namespace, which reads
 * every export, lazy getters included, and `node:http`'s load undici (its WebSocket classes), `node:crypto`'s Web
 * Crypto; together ~15 ms of a boot's CPU in a profile (docs/performance.md, "Start-up"). Required instead (the banner's `require`), they load
 * as they do for CommonJS: only what is used.
 */
const REQUIRED_BUILTINS = /^(node:)?(http|https|crypto)$/;

/** @type {import('esbuild').Plugin} */
const requireBuiltins = {
  name: 'require-builtins',
  setup(build) {
    build.onResolve({ filter: REQUIRED_BUILTINS }, (args) =>
      args.namespace === 'required-builtin' || args.kind === 'require-call'
        ? { path: args.path, external: true }
        : { path: args.path, namespace: 'required-builtin' },
    );
    build.onLoad({ filter: /.*/, namespace: 'required-builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * Bundles `<root>/dist/cli.js` into `<root>/dist/bundle/`, in memory: `outputFiles` holds the entries, their chunks and
 * their maps. The second entry is the webhook delivery thread's code, which `WebhookPostThread` starts from the file
 * beside its own module: in the bundle, `dist/bundle/webhook-post-worker.js`.
 * @param {string} root
 */
export function bundleDaemon(root) {
  return build({
    entryPoints: {
      cli: join(root, 'dist/cli.js'),
      'webhook-post-worker': join(root, 'dist/subsystems/webhooks/webhook-post-worker.js'),
    },
    outdir: join(root, DAEMON_BUNDLE_DIR),
    bundle: true,
    // Each dynamic import stays one: a chunk loaded only when that path runs (a client command, a model's thinker,
    // the OpenTelemetry export, an MCP server).
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Bundled CommonJS (ws, prom-client, abstract-level) requires Node's built-ins: give it a real `require`.
    banner: {
      js: "import { createRequire as __vigilCreateRequire } from 'node:module'; const require = __vigilCreateRequire(import.meta.url);",
    },
    // Names as written: pino logs an error's class name, and stack traces read as in dist/.
    keepNames: true,
    external: EXTERNAL,
    plugins: [requireBuiltins],
    // Follows dist/'s own maps, so a stack mapped with --enable-source-maps names src/ lines.
    sourcemap: 'linked',
    // The maps point at src/, which the package ships (as dist/'s own maps do), rather than holding it again.
    sourcesContent: false,
    write: false,
    logLevel: 'silent',
  });
}
