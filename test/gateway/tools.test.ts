/** `tools.list`, `/metrics` and `vigil tools list` over a real gateway, with real MCP servers behind the runtime. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { CliIo } from '../../src/client/commands/cli-io.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { startHttpMcpServer, type HttpMcpFixture } from '../fixtures/mcp-http-server.js';
import { refusedPort } from '../fixtures/refused-port.js';
import { isAlive, stdioFixture } from '../subsystems/tools/mcp-hub.fixture.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from './gateway.fixture.js';

let h: GatewayHarness | undefined;
let http: HttpMcpFixture | undefined;
afterEach(async () => {
  await h?.close();
  await http?.close();
  h = undefined;
  http = undefined;
});

/** Resolves once every server in `servers` has emitted mcp.server_up (already or from now on). */
function allUp(harness: GatewayHarness, servers: string[]): Promise<void> {
  const up = (events: readonly VigilEvent[]) =>
    servers.every((s) => events.some((e) => e.type === 'mcp.server_up' && e.server === s));
  if (up(harness.events)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`servers not up: ${JSON.stringify(harness.events.filter((e) => e.type.startsWith('mcp.')))}`)),
      15_000,
    );
    const subscription = harness.runtime.events$.subscribe(() => {
      if (!up(harness.events)) return;
      clearTimeout(timer);
      subscription.unsubscribe();
      resolve();
    });
  });
}

describe('tools over the gateway', () => {
  it('answers tools.list, reports servers in /metrics, and stops the servers with the runtime', async () => {
    http = await startHttpMcpServer();
    const pids = join(mkdtempSync(join(tmpdir(), 'vigil-tools-')), 'pids');
    h = await startGatewayHarness({
      runtime: {
        config: {
          mcp: {
            mcpServers: {
              local: stdioFixture(
                { FIXTURE_PID_FILE: pids },
                { allowedTools: ['echo', 'crash'], requireApproval: ['crash'], idempotentTools: ['echo'] },
              ),
              web: { url: http.url, allowedTools: ['add'] },
            },
          },
        },
      },
    });
    await allUp(h, ['local', 'web']);
    const client = await h.connect();
    const listed = await client.request('tools.list');
    expect(listed.result).toEqual([
      {
        name: 'mcp__local__crash',
        server: 'local',
        tool: 'crash',
        description: 'Exits the server process at once.',
        requireApproval: true,
        idempotent: false,
        available: true,
        state: 'up',
      },
      {
        name: 'mcp__local__echo',
        server: 'local',
        tool: 'echo',
        description: 'Echoes its text.',
        requireApproval: false,
        idempotent: true,
        available: true,
        state: 'up',
      },
      {
        name: 'mcp__web__add',
        server: 'web',
        tool: 'add',
        description: 'Adds two numbers.',
        requireApproval: false,
        idempotent: false,
        available: true,
        state: 'up',
      },
    ]);

    const metrics = await (
      await fetch(`${h.gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })
    ).text();
    expect(metrics).toContain('vigil_mcp_server_up{server="local"} 1');
    expect(metrics).toContain('vigil_mcp_server_up{server="web"} 1');
    expect(metrics).toContain('vigil_mcp_connection_attempts_total{server="local",outcome="connected"} 1');
    expect(metrics).toContain('vigil_mcp_tools{server="web"} 1');

    // The CLI, in-process against the same gateway.
    let stdout = '';
    const io: CliIo = {
      env: { VIGIL_HOST: '127.0.0.1', VIGIL_PORT: new URL(h.gateway.url).port, VIGIL_TOKEN: TEST_TOKEN },
      stdout: (text) => (stdout += text),
      stderr: () => undefined,
      readFile: (path) => readFile(path, 'utf8'),
      writeFile: (path, text) => writeFile(path, text),
      interrupted: () => new Promise(() => undefined),
    };
    expect(await main(['tools', 'list'], io)).toBe(0);
    expect(stdout.trim().split('\n')).toEqual([
      'mcp__local__crash\tup\tapproval\tExits the server process at once.',
      'mcp__local__echo\tup\tidempotent\tEchoes its text.',
      'mcp__web__add\tup\t-\tAdds two numbers.',
    ]);
    expect(await main(['tools', 'frob'], io)).toBe(2);

    const [pid] = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    expect(isAlive(pid!)).toBe(true);
    await h.close();
    h = undefined;
    expect(isAlive(pid!)).toBe(false);
  });

  it('lists a server that cannot be reached as down (why, and when it is tried again) to every scope, and tools login says so', async () => {
    const secret = 'offline-header-secret-93ab';
    h = await startGatewayHarness({
      runtime: {
        config: {
          mcp: {
            mcpServers: {
              offline: { url: `http://127.0.0.1:${await refusedPort()}/mcp`, headers: { 'X-Api-Key': secret } },
            },
          },
        },
      },
    });
    const client = await h.connect();
    const down = await h.until(
      new Promise<Extract<VigilEvent, { type: 'mcp.server_down' }>>((resolve) => {
        const subscription = h!.runtime.events$.subscribe((event) => {
          if (event.type !== 'mcp.server_down') return;
          subscription.unsubscribe();
          resolve(event);
        });
      }),
    );
    const entry = {
      server: 'offline',
      state: 'down',
      error: 'it could not be connected (TypeError ECONNREFUSED)',
      nextRetryAt: new Date(Date.parse(down.at) + down.retryInMs).toISOString(),
    };
    expect((await client.request('tools.list')).result).toEqual([entry]);
    // A read token sees it too: the reason is the event's (an error's class and code), no header, URL or server words.
    const created = await client.request('tokens.create', { scope: 'read', name: 'reader' });
    const reader = await h.connect({ token: (created.result as { token: string }).token });
    expect((await reader.request('tools.list')).result).toEqual([entry]);
    expect(JSON.stringify(entry)).not.toContain(secret);

    let stdout = '';
    let stderr = '';
    const io: CliIo = {
      env: { VIGIL_HOST: '127.0.0.1', VIGIL_PORT: new URL(h.gateway.url).port, VIGIL_TOKEN: TEST_TOKEN },
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      readFile: (path) => readFile(path, 'utf8'),
      writeFile: (path, text) => writeFile(path, text),
      interrupted: () => new Promise(() => undefined),
    };
    expect(await main(['tools', 'list'], io)).toBe(0);
    expect(stdout).toBe(`offline\tdown\t-\tcannot be reached: ${entry.error}; next attempt at ${entry.nextRetryAt}\n`);
    stdout = '';
    stderr = '';
    expect(await main(['tools', 'login', 'offline'], io)).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `vigil: MCP server offline cannot be reached: ${entry.error}; it is tried again at ${entry.nextRetryAt}.\n`,
    );
    stderr = '';
    expect(await main(['tools', 'login', 'offline', '--no-wait'], io)).toBe(1);
    expect(stderr).toContain('cannot be reached');
  });

  it('answers an empty list without servers', async () => {
    h = await startGatewayHarness();
    const client = await h.connect();
    expect((await client.request('tools.list')).result).toEqual([]);
  });
});
