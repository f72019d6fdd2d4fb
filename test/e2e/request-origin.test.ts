/**
 * DNS rebinding against a real daemon: a page whose name resolves to 127.0.0.1 reaches no route, `/healthz` included,
 * even holding the token; a reverse proxy's names are admitted by VIGIL_ALLOWED_HOSTS / VIGIL_ALLOWED_ORIGINS; an
 * invalid entry in either exits 2 naming it.
 */
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tryUpgrade } from '../gateway/ws-upgrade.js';
import { startDaemon, type DaemonProcess } from './daemon-process.js';

const dir = mkdtempSync(join(tmpdir(), 'vigil-origin-e2e-'));
const TOKEN = 'origin-e2e-token-0123456789abcdef';
const BEARER = { authorization: `Bearer ${TOKEN}` };
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'origin-e2e', version: '1.0.0' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let daemon: DaemonProcess;
let port: number;

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/**
 * One request to the daemon with the headers given, Host included (fetch may not set Host; http.request may). The
 * body is read only for a refusal or a short answer: an admitted `/events` is a stream, so its status is enough.
 */
function send(path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const status = res.statusCode ?? 0;
      const contentType = res.headers['content-type'] ?? '';
      if (contentType.includes('text/event-stream')) {
        res.destroy();
        resolve({ status, contentType, body: '' });
        return;
      }
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status, contentType, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  daemon = startDaemon(['run', '--data-dir', join(dir, 'data'), '--port', '0'], {
    VIGIL_TOKEN: TOKEN,
    VIGIL_ALLOWED_HOSTS: 'vigil.example.com, proxy.example:8443',
    VIGIL_ALLOWED_ORIGINS: 'https://vigil.example.com',
  });
  const listening = await daemon.waitFor((l) => l.msg === 'gateway listening', 20_000, 'gateway listening');
  port = Number(new URL(String(listening['url'])).port);
});

afterAll(async () => {
  daemon.kill('SIGTERM');
  await daemon.exited;
  rmSync(dir, { recursive: true, force: true });
});

describe('a DNS-rebinding request to a real daemon', () => {
  const rebinding = () => ({ host: `evil.example:${port}`, origin: 'http://evil.example' });

  it('is refused with 403 on every HTTP route, before the token is looked at, and names the Host', async () => {
    for (const path of ['/healthz', '/events', '/metrics', '/', `/events?token=${TOKEN}`]) {
      for (const auth of [{}, BEARER]) {
        const answer = await send(path, { ...rebinding(), ...auth });
        expect(answer.status, `${path} ${JSON.stringify(auth)}`).toBe(403);
        expect(JSON.parse(answer.body)).toMatchObject({ refused: 'host', error: expect.stringContaining('Host') });
      }
    }
  });

  it('is refused on /mcp with 403 and a JSON-RPC error body, token or not', async () => {
    for (const auth of [{}, BEARER]) {
      const answer = await send('/mcp', { ...rebinding(), ...MCP_HEADERS, ...auth }, 'POST', INITIALIZE);
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: expect.stringContaining('VIGIL_ALLOWED_HOSTS') },
      });
    }
  });

  it('gets 403 and no socket on the /rpc WebSocket upgrade, holding the token', async () => {
    expect(await tryUpgrade(`ws://127.0.0.1:${port}/rpc`, { ...rebinding(), ...BEARER })).toBe(403);
    expect(await tryUpgrade(`ws://127.0.0.1:${port}/rpc?token=${TOKEN}`, rebinding())).toBe(403);
  });

  it("is refused for its Origin alone when it sends the gateway's own Host, on every route", async () => {
    const foreign = { host: `127.0.0.1:${port}`, origin: 'http://evil.example' };
    for (const path of ['/healthz', '/events', '/metrics', '/'])
      expect((await send(path, { ...foreign, ...BEARER })).status, path).toBe(403);
    const mcp = await send('/mcp', { ...foreign, ...MCP_HEADERS, ...BEARER }, 'POST', INITIALIZE);
    expect(mcp.status).toBe(403);
    expect(await tryUpgrade(`ws://127.0.0.1:${port}/rpc`, { origin: 'http://evil.example', ...BEARER })).toBe(403);
    expect(await tryUpgrade(`ws://127.0.0.1:${port}/rpc`, { origin: 'null', ...BEARER })).toBe(403);
  });

  it('is logged naming the header and the path, never the token', async () => {
    await daemon.waitFor((l) => l['header'] === 'host', 5_000, 'a refusal line');
    const refusals = daemon.lines.filter((l) => String(l.msg).startsWith('gateway refused a request'));
    expect(refusals[0]).toMatchObject({ header: 'host', value: `evil.example:${port}`, level: 40 });
    expect(daemon.lines.some((l) => l['header'] === 'origin')).toBe(true);
    expect(JSON.stringify(daemon.lines)).not.toContain(TOKEN);
  });
});

describe("the gateway's own names and the allow-lists", () => {
  it("admit localhost, 127.0.0.1 and [::1] with the port, and the dashboard's own origin, on every route", async () => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      const own = { host, origin: `http://${host}` };
      expect((await send('/healthz', own)).status, host).toBe(200);
      expect((await send('/metrics', { ...own, ...BEARER })).status, host).toBe(200);
      expect((await send('/events', { ...own, ...BEARER })).status, host).toBe(200);
      expect((await send('/', { ...own, ...BEARER })).status, host).toBe(200);
      expect((await send('/mcp', { ...own, ...MCP_HEADERS, ...BEARER }, 'POST', INITIALIZE)).status, host).toBe(200);
      expect(await tryUpgrade(`ws://127.0.0.1:${port}/rpc`, { ...own, ...BEARER }), host).toBe(101);
    }
  });

  it("admit a reverse proxy's Host from VIGIL_ALLOWED_HOSTS and its Origin from VIGIL_ALLOWED_ORIGINS", async () => {
    const proxied = { host: 'vigil.example.com', origin: 'https://vigil.example.com' };
    expect((await send('/healthz', proxied)).status).toBe(200);
    expect((await send('/mcp', { ...proxied, ...MCP_HEADERS, ...BEARER }, 'POST', INITIALIZE)).status).toBe(200);
    expect(await tryUpgrade(`ws://127.0.0.1:${port}/rpc`, { ...proxied, ...BEARER })).toBe(101);
    // An entry with a port admits that port only.
    expect((await send('/healthz', { host: 'proxy.example:8443' })).status).toBe(200);
    expect((await send('/healthz', { host: 'proxy.example:9000' })).status).toBe(403);
    // The allowed host's plain-http origin was not listed.
    expect((await send('/healthz', { host: 'vigil.example.com', origin: 'http://vigil.example.com' })).status).toBe(
      403,
    );
  });

  it('still want the token past the Host and Origin checks', async () => {
    expect((await send('/metrics', { host: `127.0.0.1:${port}` })).status).toBe(401);
    expect(await tryUpgrade(`ws://127.0.0.1:${port}/rpc`)).toBe(401);
  });
});

describe('invalid allow-lists', () => {
  it.each([
    ['VIGIL_ALLOWED_HOSTS', 'ok.example,http://vigil.example.com/', 'host names or addresses'],
    ['VIGIL_ALLOWED_ORIGINS', 'null', 'http(s) origins'],
    ['VIGIL_ALLOWED_ORIGINS', 'vigil.example.com', 'http(s) origins'],
  ])('%s=%s exits 2 naming the variable, the value and what is allowed', async (variable, value, allowed) => {
    const bad = startDaemon(['run', '--data-dir', join(dir, 'bad'), '--port', '0'], { [variable]: value });
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toContain(`${variable}=${JSON.stringify(value)} is invalid`);
    expect(bad.stderr()).toContain(allowed);
  });
});
