// The dashboard's typed client: esbuild bundles src/client/browser.ts (the Node client's core over the browser's WebSocket) into one ES module.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

/** Where the bundle goes, beside the dashboard's other files (the route serves both under /dashboard/). */
export const BUNDLE_NAME = 'vigil-client.js';

// `ws` resolves to its browser stub, which throws at run time: refuse it at build time instead, with the reason.
// (Node built-ins need no rule: for the browser platform esbuild fails on them by itself.)
/** @type {import('esbuild').Plugin} */
const nodeOnly = {
  name: 'vigil-node-only',
  setup(build) {
    build.onResolve({ filter: /^(ws|node:.*)$/ }, (args) => ({
      errors: [
        {
          text: `${args.importer} imports ${args.path}: the browser bundle must not load Node-only code (src/client/node-socket.ts is Node's transport).`,
        },
      ],
    }));
  },
};

// `import { z } from 'zod'` binds zod's whole namespace object, every locale and the JSON Schema tools included
// (~450 kB minified): esbuild cannot tree-shake a namespace re-exported by name. `import * as z from 'zod'` is the same
// API (the package index re-exports it all), and esbuild keeps only what is used. The rewrite is exact: any other form
// of import is left as written, and costs size, never behaviour.
/** @type {import('esbuild').Plugin} */
const zodNamespace = {
  name: 'vigil-zod-namespace',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replace(
        /^import \{ z \} from 'zod';$/gm,
        "import * as z from 'zod';",
      ),
      loader: 'ts',
    }));
  },
};

/**
 * Bundles the browser client under `root` into `outDir`, in memory: `outputFiles` holds the module and its source map.
 * @param {string} root
 * @param {string} outDir
 */
export function bundleBrowserClient(root, outDir) {
  return build({
    entryPoints: [join(root, 'src/client/browser.ts')],
    outfile: join(outDir, BUNDLE_NAME),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    // RxJS's ES2015 modules rather than its ES5 default build.
    conditions: ['es2015'],
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    write: false,
    plugins: [nodeOnly, zodNamespace],
    logLevel: 'silent',
  });
}
