/**
 * Wrong and missing tokens, repeated: every attempt is refused (401, no socket), the comparison is constant-time by
 * construction (both sides hashed to 32 bytes before timingSafeEqual, checked by spying on it, not by timing), and
 * failures are logged at warn with the remote address, never the token, at most one line per address per interval.
 */
import type * as nodeCrypto from 'node:crypto';
import { timingSafeEqual } from 'node:crypto';
import { request, type IncomingMessage } from 'node:http';
import { tryUpgrade } from './ws-upgrade.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRequestAuth, createTokenCheck } from '../../src/gateway/gateway-auth.js';
import { recordingLogger, LEVELS } from '../faults/recording-logger.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from './gateway.fixture.js';

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof nodeCrypto>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});
const compare = vi.mocked(timingSafeEqual);

// Guesses of every shape: right length, off by one, empty, very long, and near misses of the real token.
const GUESSES = [
  '',
  'x',
  TEST_TOKEN.slice(0, -1),
  `${TEST_TOKEN}x`,
  `${TEST_TOKEN.slice(0, -1)}X`,
  'y'.repeat(TEST_TOKEN.length),
  'z'.repeat(5000),
];

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness();
});
afterAll(() => h.close());
beforeEach(() => {
  compare.mockClear();
});

/** Tries a WebSocket upgrade; resolves with the HTTP status of a refusal, or 101 when a socket opened. */
function upgrade(query: string, headers: Record<string, string>, rpcUrl = h.rpcUrl): Promise<number> {
  return tryUpgrade(`${rpcUrl}${query}`, headers);
}

function get(path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${h.gateway.url}${path}`, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A request as the auth check sees it. */
function fakeRequest(remoteAddress: string, headers: Record<string, string> = {}): IncomingMessage {
  return { headers, socket: { remoteAddress } } as unknown as IncomingMessage;
}

describe('the token comparison', () => {
  it('compares two 32-byte digests with timingSafeEqual for every guess, whatever its length, and for no token at all', () => {
    const check = createTokenCheck(TEST_TOKEN);
    for (const guess of [...GUESSES, undefined]) expect(check(guess)).toBe(false);
    expect(check(TEST_TOKEN)).toBe(true);
    // One comparison per check: no shortcut on length or emptiness before it.
    expect(compare).toHaveBeenCalledTimes(GUESSES.length + 2);
    for (const [a, b] of compare.mock.calls) {
      expect(a.byteLength).toBe(32);
      expect(b.byteLength).toBe(32);
    }
  });

  it('is what the gateway uses on every upgrade and request', async () => {
    expect(await upgrade('', { authorization: 'Bearer short' })).toBe(401);
    expect(await upgrade(`?token=${'q'.repeat(3000)}`, {})).toBe(401);
    expect(await get('/events', { authorization: `Bearer ${TEST_TOKEN}x` })).toBe(401);
    expect(compare.mock.calls.length).toBeGreaterThanOrEqual(3);
    for (const [a, b] of compare.mock.calls) expect([a.byteLength, b.byteLength]).toEqual([32, 32]);
  });
});

describe('the gateway under repeated wrong and missing tokens', () => {
  it('refuses every one of 300 attempts with no socket (401, then 429 once the address is throttled), and keeps beating', async () => {
    const beats = h.runtime.status().beatCount;
    const attempts: Array<Promise<number>> = [];
    for (let i = 0; i < 300; i += 1) {
      const guess = GUESSES[i % GUESSES.length]!;
      if (i % 5 === 0) attempts.push(upgrade('', {}));
      else if (i % 5 === 1) attempts.push(upgrade(`?token=${encodeURIComponent(guess)}`, {}));
      else if (i % 5 === 2) attempts.push(upgrade('', { authorization: `Bearer ${guess}` }));
      else if (i % 5 === 3) attempts.push(upgrade('', { authorization: `Basic ${TEST_TOKEN}` }));
      else attempts.push(get(`/events?token=${encodeURIComponent(guess)}`));
    }
    const statuses = await Promise.all(attempts);
    expect(new Set(statuses)).toEqual(new Set([401, 429]));
    // The wrong tokens past the address's burst are throttled; missing ones are no guesses and stay 401.
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(100);
    expect(h.gateway.stats().connections).toHaveLength(0);
    // Seconds later the address has wrong tokens to spare again, and the right one is checked.
    await h.advance(3000);
    expect(h.runtime.status().beatCount).toBeGreaterThan(beats + 2);
    expect(await upgrade('', { authorization: `Bearer ${TEST_TOKEN}` })).toBe(101);
  });
});

describe('the gateway logging refusals', () => {
  it('logs refused upgrades and requests at warn with the remote address, never the token, once per address per interval', async () => {
    const { log, records, text } = recordingLogger();
    // The failed-auth throttle off: this is about the log lines of 61 refusals checked one by one.
    const g = await startGatewayHarness({ gateway: { log, failedAuthLimit: { perSecond: 0, burst: 1 } } });
    try {
      const guesses = ['guess-one-0001', `${TEST_TOKEN}x`, 'z'.repeat(500)];
      expect(await upgrade('', {}, g.rpcUrl)).toBe(401);
      for (let i = 0; i < 30; i += 1) {
        const guess = guesses[i % guesses.length]!;
        expect(await upgrade('', { authorization: `Bearer ${guess}` }, g.rpcUrl)).toBe(401);
        expect(await upgrade(`?token=${guess}`, {}, g.rpcUrl)).toBe(401);
      }
      expect(await upgrade('', { authorization: `Bearer ${TEST_TOKEN}` }, g.rpcUrl)).toBe(101);
      // 61 refusals from one address in well under the 10 s interval: one line, for the first.
      const lines = records.filter((r) => r.msg === 'gateway authentication failed');
      expect(lines).toEqual([
        expect.objectContaining({
          level: LEVELS.warn,
          remoteAddress: expect.stringMatching(/127\.0\.0\.1$/),
          path: '/rpc',
          reason: 'missing',
          attempts: 1,
        }),
      ]);
      for (const secret of [TEST_TOKEN.slice(0, 8), ...guesses]) expect(text()).not.toContain(secret);
    } finally {
      await g.close();
    }
  });
});

describe('createRequestAuth', () => {
  it('logs a refusal at warn with the address, path and whether the token was missing or wrong, never the token', () => {
    const { log, records, text } = recordingLogger();
    let now = 0;
    const check = createRequestAuth(TEST_TOKEN, log, { now: () => now });
    const url = (q = '') => new URL(`http://localhost/rpc${q}`);
    expect(check(fakeRequest('10.0.0.1'), url())).toBe(false);
    now += 20_000;
    expect(check(fakeRequest('10.0.0.1', { authorization: `Bearer ${TEST_TOKEN}x` }), url())).toBe(false);
    now += 20_000;
    expect(check(fakeRequest('10.0.0.1'), url(`?token=${TEST_TOKEN.slice(0, -1)}`))).toBe(false);
    expect(check(fakeRequest('10.0.0.1', { authorization: `Bearer ${TEST_TOKEN}` }), url())).toBe(true);
    expect(records).toEqual([
      expect.objectContaining({
        level: LEVELS.warn,
        msg: 'gateway authentication failed',
        remoteAddress: '10.0.0.1',
        path: '/rpc',
        reason: 'missing',
        attempts: 1,
      }),
      expect.objectContaining({ level: LEVELS.warn, remoteAddress: '10.0.0.1', reason: 'wrong', attempts: 1 }),
      expect.objectContaining({ level: LEVELS.warn, remoteAddress: '10.0.0.1', reason: 'wrong', attempts: 1 }),
    ]);
    // Not the token, not a near miss of it, not the query string that carried one.
    expect(text()).not.toContain(TEST_TOKEN.slice(0, 8));
    expect(text()).not.toContain('token=');
  });

  it('writes one line per address per interval however fast the guesses come, with the count since the last', () => {
    const { log, records } = recordingLogger();
    let now = 0;
    const check = createRequestAuth(TEST_TOKEN, log, { now: () => now, everyMs: 10_000 });
    const url = new URL('http://localhost/rpc');
    for (let i = 0; i < 10_000; i += 1) {
      now += 1; // 10,000 guesses in 10 s from one address
      check(fakeRequest('10.0.0.2', { authorization: `Bearer guess-${i}` }), url);
    }
    check(fakeRequest('10.0.0.3'), url);
    now += 1;
    check(fakeRequest('10.0.0.2', { authorization: 'Bearer again' }), url);
    expect(records.map((r) => [r['remoteAddress'], r['attempts']])).toEqual([
      ['10.0.0.2', 1],
      ['10.0.0.3', 1],
      ['10.0.0.2', 10_000],
    ]);
  });

  it('remembers a bounded number of addresses, forgetting the oldest', () => {
    const { log, records } = recordingLogger();
    const check = createRequestAuth(TEST_TOKEN, log, { now: () => 0, maxAddresses: 2 });
    const url = new URL('http://localhost/rpc');
    for (const address of ['10.0.0.1', '10.0.0.2', '10.0.0.1', '10.0.0.3', '10.0.0.1', '10.0.0.2'])
      check(fakeRequest(address), url);
    // 10.0.0.1 is throttled while remembered; each new address pushes out the first remembered (10.0.0.3 pushes
    // out 10.0.0.1, which coming back pushes out 10.0.0.2), and a forgotten address is logged anew.
    expect(records.map((r) => r['remoteAddress'])).toEqual([
      '10.0.0.1',
      '10.0.0.2',
      '10.0.0.3',
      '10.0.0.1',
      '10.0.0.2',
    ]);
  });
});
