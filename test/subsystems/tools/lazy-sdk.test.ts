/** A runtime without MCP servers never loads the MCP SDK or Ajv: ~210 ms of imports a plain daemon's boot does not pay. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runNode } from '../../e2e/run-process.js';

describe('the MCP SDK is loaded lazily', () => {
  it('is not imported by a runtime that starts and stops without servers, and is once a server is configured', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-lazy-'));
    // A module resolve hook that reports every MCP SDK or Ajv module the process loads.
    const hook = join(dir, 'hook.mjs');
    writeFileSync(
      hook,
      `export async function resolve(specifier, context, next) {
        const result = await next(specifier, context);
        if (/modelcontextprotocol|[/]ajv[/]/.test(result.url)) process.stderr.write('LOADED ' + result.url + '\\n');
        return result;
      }`,
    );
    const register = join(dir, 'register.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hook).href)});\n`,
    );
    const script = (mcp: string) => `
      const { createRuntime } = await import('./src/runtime/create-runtime.ts');
      const runtime = await createRuntime({ config: { dataDir: ${JSON.stringify(join(dir, 'data'))}, mcp: ${mcp} } });
      runtime.start();
      await runtime.stop();`;
    const plain = await runNode([
      '--import',
      'tsx',
      '--import',
      register,
      '--input-type=module',
      '-e',
      script('{ mcpServers: {} }'),
    ]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).not.toContain('LOADED');
    // The same probe sees the SDK when there is a server to start (it need not even exist).
    const withServer = await runNode([
      '--import',
      'tsx',
      '--import',
      register,
      '--input-type=module',
      '-e',
      script(`{ mcpServers: { ghost: { command: ${JSON.stringify(join(dir, 'none'))} } } }`),
    ]);
    expect(withServer.code, withServer.stderr).toBe(0);
    expect(withServer.stderr).toContain('LOADED');
  });
});
