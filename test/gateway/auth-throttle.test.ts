/**
 * Failed authentications slowed per address, on a real gateway in simulated time: 20 wrong tokens from one address
 * are answered 401, the rest 429 with Retry-After, unchecked, on every path; another address is not touched; the
 * bucket refills on the runtime's clock; the addresses remembered are bounded.
 */
import { request, type IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { addressKey, createThrottledAuth, DEFAULT_FAILED_AUTH_LIMIT } from '../../src/gateway/auth-throttle.js';
import { connect } from '../../src/client/vigil-client.js';
import { DAEMON_CALLER } from '../../src/runtime/facade/tokens.facade.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from './gateway.fixture.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

// Linux routes all of 127.0.0.0/8 to loopback: a second address to guess from, beside the test's own 127.0.0.1.
const GUESSER = '127.0.0.2';

interface Answer {
  status: number;
  retryAfter: string | undefined;
}

/** A request from `localAddress` with `token` (none when null). */
function send(
  url: string,
  token: string | null,
  options: { localAddress?: string; method?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        localAddress: options.localAddress,
        headers: token === null ? {} : { authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const retryAfter = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, retryAfter });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A WebSocket upgrade from `localAddress`: 101 when it opened, else the refusal's status and Retry-After. */
function upgrade(rpcUrl: string, token: string, localAddress?: string): Promise<Answer> {
  return new Promise((resolve) => {
    const ws = new WebSocket(rpcUrl, { headers: { authorization: `Bearer ${token}` }, localAddress });
    ws.on('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] });
      ws.terminate();
    });
    ws.on('open', () => {
      resolve({ status: 101, retryAfter: undefined });
      ws.close();
    });
    ws.on('error', () => undefined);
  });
}

async function throttledCount(harness: GatewayHarness): Promise<number> {
  const text = await (
    await fetch(`${harness.gateway.url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })
  ).text();
  return Number(/^vigil_gateway_auth_throttled_total (\d+)$/m.exec(text)?.[1] ?? NaN);
}

describe('failed authentications slowed per address', () => {
  it('answers 20 wrong tokens 401, then 429 with Retry-After on every path, the right token included; another address goes on', async () => {
    h = await startGatewayHarness();
    const { url } = h.gateway;
    const guess = { localAddress: GUESSER };
    expect(await throttledCount(h)).toBe(0);
    for (let i = 0; i < DEFAULT_FAILED_AUTH_LIMIT.burst; i += 1)
      expect((await send(`${url}/metrics`, `guess-${i}`, guess)).status).toBe(401);
    expect(await send(`${url}/metrics`, 'guess-x', guess)).toEqual({ status: 429, retryAfter: '1' });
    expect((await send(`${url}/events`, 'guess-y', guess)).status).toBe(429);
    expect((await send(`${url}/mcp`, 'guess-z', { ...guess, method: 'POST' })).status).toBe(429);
    expect(await upgrade(h.rpcUrl, 'guess-w', GUESSER)).toEqual({ status: 429, retryAfter: '1' });
    // The right token from the guessing address is refused unchecked too: admitting it would tell which guess was right.
    expect((await send(`${url}/metrics`, TEST_TOKEN, guess)).status).toBe(429);
    expect((await upgrade(h.rpcUrl, TEST_TOKEN, GUESSER)).status).toBe(429);
    // No token is no guess: 401 as ever.
    expect((await send(`${url}/metrics`, null, guess)).status).toBe(401);
    // Another address is not touched: the operator's client, and a guess of its own, are checked as ever.
    expect((await send(`${url}/metrics`, TEST_TOKEN)).status).toBe(200);
    expect((await upgrade(h.rpcUrl, TEST_TOKEN)).status).toBe(101);
    expect((await send(`${url}/metrics`, 'typo')).status).toBe(401);
    expect(await throttledCount(h)).toBe(6);
    // /healthz needs no token and is never throttled.
    expect((await send(`${url}/healthz`, 'guess-h', guess)).status).toBe(200);

    // A second on the runtime's clock refills one wrong token's worth: the right token gets in, and one more guess
    // is checked (401) before the address is throttled again.
    await h.advance(999);
    expect((await send(`${url}/metrics`, TEST_TOKEN, guess)).status).toBe(429);
    await h.advance(1);
    expect((await send(`${url}/metrics`, TEST_TOKEN, guess)).status).toBe(200);
    expect((await send(`${url}/metrics`, 'guess-again', guess)).status).toBe(401);
    expect((await send(`${url}/metrics`, TEST_TOKEN, guess)).status).toBe(429);
  });

  it('is off with a rate of 0', async () => {
    h = await startGatewayHarness({ gateway: { failedAuthLimit: { perSecond: 0, burst: 1 } } });
    for (let i = 0; i < 40; i += 1) expect((await send(`${h.gateway.url}/metrics`, `guess-${i}`)).status).toBe(401);
    expect((await send(`${h.gateway.url}/metrics`, TEST_TOKEN)).status).toBe(200);
  });
});

/** A request as the check sees it. */
function fakeRequest(remoteAddress: string, token: string): IncomingMessage {
  return { headers: { authorization: `Bearer ${token}` }, socket: { remoteAddress } } as unknown as IncomingMessage;
}

/** A GET from `localAddress` with extra headers: the status and the JSON body's `error` (empty for another body). */
function get(
  url: string,
  headers: Record<string, string>,
  localAddress: string,
): Promise<{ status: number; error: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress, headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => {
        const json = res.headers['content-type']?.startsWith('application/json') === true;
        resolve({ status: res.statusCode ?? 0, error: json ? (JSON.parse(body) as { error: string }).error : '' });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a token in the query string of a cross-site browser request', () => {
  it('is neither accepted nor counted: 30 wrong ones from a web page do not make the right token from that address 429', async () => {
    h = await startGatewayHarness();
    const { url } = h.gateway;
    for (let i = 0; i < 30; i += 1) {
      const site = i % 2 === 0 ? 'cross-site' : 'same-site';
      const answer = await get(`${url}/metrics?token=guess-${i}`, { 'sec-fetch-site': site }, GUESSER);
      expect(answer.status).toBe(401);
      expect(answer.error).toContain('not accepted from a page on another site');
    }
    // Not accepted either: the right token from a cross-site page opens nothing.
    expect((await get(`${url}/metrics?token=${TEST_TOKEN}`, { 'sec-fetch-site': 'cross-site' }, GUESSER)).status).toBe(
      401,
    );
    expect((await send(`${url}/metrics`, TEST_TOKEN, { localAddress: GUESSER })).status).toBe(200);
    // The gateway's own page (same-origin) and a typed URL (none) still may use ?token=.
    for (const site of ['same-origin', 'none']) {
      expect((await get(`${url}/metrics?token=${TEST_TOKEN}`, { 'sec-fetch-site': site }, GUESSER)).status).toBe(200);
    }
    expect(await throttledCount(h)).toBe(0);
  });

  it('counts the same wrong tokens without Sec-Fetch-Site, and the 429 says what happened', async () => {
    h = await startGatewayHarness();
    const { url } = h.gateway;
    for (let i = 0; i < DEFAULT_FAILED_AUTH_LIMIT.burst; i += 1) {
      expect((await get(`${url}/metrics?token=guess-${i}`, {}, GUESSER)).status).toBe(401);
    }
    const throttled = await get(`${url}/metrics`, { authorization: `Bearer ${TEST_TOKEN}` }, GUESSER);
    expect(throttled.status).toBe(429);
    expect(throttled.error).toMatch(/too many wrong tokens came from this address \(127\.0\.0\.2\)/);
    expect(throttled.error).toContain('the right one included');
  });
});

describe('the client at a throttled address', () => {
  it('rejects with GATEWAY_THROTTLED, not as a daemon that does not answer', async () => {
    h = await startGatewayHarness({ gateway: { failedAuthLimit: { perSecond: 1, burst: 1 } } });
    await expect(connect({ url: h.gateway.url, token: 'wrong', reconnect: false })).rejects.toMatchObject({
      code: 'GATEWAY_UNAUTHORIZED',
    });
    await expect(connect({ url: h.gateway.url, token: TEST_TOKEN, reconnect: false })).rejects.toMatchObject({
      code: 'GATEWAY_THROTTLED',
    });
  });
});

describe('createThrottledAuth', () => {
  const url = new URL('http://localhost/metrics');
  const build = (maxAddresses: number) => {
    let now = 0;
    const admit = createThrottledAuth({
      authenticate: (given) => (given === 'right' ? DAEMON_CALLER : null),
      logRefusal: () => undefined,
      now: () => now,
      limit: { perSecond: 1, burst: 2 },
      maxAddresses,
    });
    return { admit, tick: (ms: number) => (now += ms) };
  };

  it('remembers a bounded number of addresses, forgetting the least recently seen', () => {
    const { admit } = build(3);
    const drain = (address: string) => {
      admit(fakeRequest(address, 'wrong'), url);
      admit(fakeRequest(address, 'wrong'), url);
    };
    drain('10.0.0.1');
    expect(admit(fakeRequest('10.0.0.1', 'right'), url).kind).toBe('throttled');
    for (let i = 2; i <= 4; i += 1) drain(`10.0.0.${i}`);
    // 10.0.0.1 was forgotten when the fourth came: its bucket is new, full.
    expect(admit(fakeRequest('10.0.0.1', 'right'), url).kind).toBe('admitted');
    expect(admit(fakeRequest('10.0.0.4', 'right'), url).kind).toBe('throttled');
  });

  it('throttles an IPv6 /64 as one address and an IPv4-mapped address as its IPv4 one', () => {
    const { admit, tick } = build(16);
    admit(fakeRequest('2001:db8:1:2::1', 'wrong'), url);
    admit(fakeRequest('2001:db8:1:2:ffff:ffff:ffff:ffff', 'wrong'), url);
    expect(admit(fakeRequest('2001:0db8:0001:0002::99', 'right'), url)).toEqual({
      kind: 'throttled',
      retryAfterMs: 1000,
      address: '2001:db8:1:2::/64',
    });
    expect(admit(fakeRequest('2001:db8:1:3::1', 'right'), url).kind).toBe('admitted');
    admit(fakeRequest('::ffff:192.0.2.7', 'wrong'), url);
    admit(fakeRequest('192.0.2.7', 'wrong'), url);
    expect(admit(fakeRequest('::ffff:192.0.2.7', 'right'), url).kind).toBe('throttled');
    tick(1000);
    expect(admit(fakeRequest('192.0.2.7', 'right'), url).kind).toBe('admitted');
  });

  it('keys addresses as IPv4, or an IPv6 /64', () => {
    expect(addressKey('127.0.0.1')).toBe('127.0.0.1');
    expect(addressKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('2001:DB8:0:1:2:3:4:5')).toBe('2001:db8:0:1::/64');
    expect(addressKey(undefined)).toBe('unknown');
  });
});
