import { request } from 'node:http';
import { mkdtemp, rm, stat, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tryUpgrade } from './ws-upgrade.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isVigilError } from '../../src/errors.js';
import { createTokenCheck } from '../../src/gateway/gateway-auth.js';
import { isLoopbackHost } from '../../src/shared/loopback.js';
import { assertTokenPolicy, ensureTokenFile, readTokenFile } from '../../src/shared/token-file.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from './gateway.fixture.js';

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness();
});
afterAll(() => h.close());

/** A plain HTTP GET; resolves with status and body. */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${h.gateway.url}${path}`, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Tries a WebSocket upgrade; resolves with the HTTP status of a refusal, or 101 when a socket opened. */
function upgrade(path: string, headers: Record<string, string> = {}): Promise<number> {
  return tryUpgrade(`${h.gateway.url.replace('http', 'ws')}${path}`, headers);
}

describe('gateway authentication', () => {
  it('answers /healthz without a token', async () => {
    const { status, body } = await get('/healthz');
    expect(status).toBe(200);
    expect(JSON.parse(body)).toEqual({ ok: true, beatCount: 0 });
  });

  it('refuses a WebSocket upgrade without a token, with a wrong one, or a wrong-length one: HTTP 401, no socket', async () => {
    expect(await upgrade('/rpc')).toBe(401);
    expect(await upgrade('/rpc', { authorization: `Bearer ${TEST_TOKEN.slice(0, -1)}x` })).toBe(401);
    expect(await upgrade('/rpc', { authorization: 'Bearer short' })).toBe(401);
    expect(await upgrade('/rpc?token=wrong')).toBe(401);
    expect(await upgrade('/rpc', { authorization: `Basic ${TEST_TOKEN}` })).toBe(401);
    expect(h.gateway.stats().connections).toHaveLength(0);
  });

  it('accepts the token as a Bearer header or as ?token=', async () => {
    expect(await upgrade('/rpc', { authorization: `Bearer ${TEST_TOKEN}` })).toBe(101);
    expect(await upgrade(`/rpc?token=${TEST_TOKEN}`)).toBe(101);
  });

  it('answers an upgrade on another path with 404', async () => {
    expect(await upgrade(`/elsewhere?token=${TEST_TOKEN}`)).toBe(404);
  });

  it('requires the token on /events and every other path; unknown paths are 404 only once authenticated', async () => {
    expect((await get('/events')).status).toBe(401);
    expect((await get('/events?token=nope')).status).toBe(401);
    expect((await get('/nowhere')).status).toBe(401);
    expect((await get('/nowhere', { authorization: `Bearer ${TEST_TOKEN}` })).status).toBe(404);
  });
});

describe('createTokenCheck', () => {
  it('accepts only the exact token, whatever the length of the guess', () => {
    const check = createTokenCheck('s3cret-token');
    expect(check('s3cret-token')).toBe(true);
    for (const guess of [undefined, '', 's3cret-toke', 's3cret-tokenX', 'S3cret-token', 'x'.repeat(10_000)])
      expect(check(guess)).toBe(false);
  });
});

describe('isLoopbackHost', () => {
  it('knows loopback hosts from the rest', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', 'LOCALHOST'])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '128.0.0.1'])
      expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('the token file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vigil-token-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is generated once with mode 0600 and reused', async () => {
    const dataDir = join(dir, 'fresh');
    const first = await ensureTokenFile(dataDir);
    expect(first.created).toBe(true);
    expect(first.token.length).toBeGreaterThanOrEqual(40);
    expect((await stat(first.path)).mode & 0o777).toBe(0o600);
    const second = await ensureTokenFile(dataDir);
    expect(second).toEqual({ token: first.token, path: first.path, created: false });
    expect(await readTokenFile(dataDir)).toBe(first.token);
  });

  it('leaves a token file an operator opened to others as it is (the daemon warns about it at boot)', async () => {
    const dataDir = join(dir, 'loose');
    await ensureTokenFile(dataDir);
    await writeFile(join(dataDir, 'token'), 'hand-written\n');
    await chmod(join(dataDir, 'token'), 0o640);
    expect((await ensureTokenFile(dataDir)).token).toBe('hand-written');
    expect((await stat(join(dataDir, 'token'))).mode & 0o777).toBe(0o640);
  });

  it('is refused for a non-loopback host: VIGIL_TOKEN must be set explicitly', () => {
    expect(() => assertTokenPolicy({ host: '127.0.0.1' })).not.toThrow();
    expect(() => assertTokenPolicy({ host: '0.0.0.0', token: 'chosen' })).not.toThrow();
    try {
      assertTokenPolicy({ host: '0.0.0.0' });
      expect.unreachable();
    } catch (err) {
      expect(isVigilError(err, 'CONFIG_INVALID')).toBe(true);
      expect((err as Error).message).toMatch(/VIGIL_TOKEN/);
      expect((err as { data: unknown }).data).toMatchObject({ variable: 'VIGIL_TOKEN' });
    }
  });
});
