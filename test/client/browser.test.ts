/**
 * The browser entry as the dashboard gets it: the esbuild bundle in dist/ (the vitest global setup builds it) is one
 * self-contained module, holds the typed client and nothing of Node, and works against a real gateway.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type * as BrowserClient from '../../src/client/browser.js';
import WebSocket from 'ws';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from '../gateway/gateway.fixture.js';
import { ROOT } from '../e2e/run-process.js';

const BUNDLE = join(ROOT, 'dist/gateway/dashboard/vigil-client.js');

let h: GatewayHarness | undefined;
afterEach(async () => {
  vi.unstubAllGlobals();
  await h?.close();
  h = undefined;
});

describe('the browser bundle (dist/gateway/dashboard/vigil-client.js)', () => {
  it('is one self-contained ES module: it imports nothing, so a page loads it alone', async () => {
    // esbuild reads the bundle as an entry and reports every import it makes (each left external, none followed).
    const { metafile } = await build({
      entryPoints: [BUNDLE],
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      logLevel: 'silent',
      plugins: [
        {
          name: 'external',
          setup: (b) =>
            b.onResolve({ filter: /.*/ }, (args) =>
              args.kind === 'entry-point' ? undefined : { path: args.path, external: true },
            ),
        },
      ],
    });
    const input = metafile.inputs[relative(process.cwd(), BUNDLE)];
    expect(input).toBeDefined();
    expect(input!.imports).toEqual([]);
    expect(input!.format).toBe('esm');
  });

  it('holds the typed client and nothing of Node: not ws, no node: built-in, not the Node transport', () => {
    const map = JSON.parse(readFileSync(`${BUNDLE}.map`, 'utf8')) as { sources: string[] };
    const sources = map.sources.map((source) => source.replace(/^(\.\.\/)+/, ''));
    for (const file of [
      'src/client/browser.ts',
      'src/client/browser-socket.ts',
      'src/client/client-core.ts',
      'src/client/rpc-error.ts',
      'src/protocol/rpc-methods.ts',
    ]) {
      expect(sources).toContain(file);
    }
    expect(
      sources.filter((source) =>
        /node_modules\/ws\/|^node:|src\/client\/(node-socket|vigil-client)\.ts$|src\/(gateway|runtime|subsystems)\//.test(
          source,
        ),
      ),
    ).toEqual([]);
    expect(readFileSync(BUNDLE, 'utf8')).not.toMatch(/require\(|from\s*"(ws|node:[^"]*)"/);
  });

  it('connects to a real gateway over a WHATWG WebSocket with ?token=, typed calls and vigilCode intact', async () => {
    h = await startGatewayHarness();
    // `ws` implements the WHATWG interface: here it stands in for the page's global WebSocket.
    vi.stubGlobal('WebSocket', WebSocket);
    const bundle = (await import(pathToFileURL(BUNDLE).href)) as typeof BrowserClient;
    const client = await bundle.connect({ url: h.gateway.url, token: TEST_TOKEN, reconnect: false });
    try {
      await h.advance(2000);
      expect((await client.heartbeat.status()).beatCount).toBe(2);
      const saved = await h.until(client.checkpoint.create());
      const err = await client.checkpoint.restore({ id: saved.id }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(bundle.RpcError);
      expect(err).toMatchObject({
        code: -32001,
        vigilCode: 'CHECKPOINT_CONFIRMATION_REQUIRED',
        data: { id: saved.id },
      });
    } finally {
      await client.close();
    }
    const refused = await bundle.connect({ url: h.gateway.url, token: 'not-the-token' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(bundle.VigilError);
    expect(refused).toMatchObject({ code: 'CLIENT_DISCONNECTED' });
  });
});
