/** Where a webhook may post (CONTRACT §16): the address policy, its DNS checks at add and at connect, masked URLs. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkDestination,
  type DestinationPolicy,
  gatewayAddresses,
  isPrivateAddress,
  maskUrlCredentials,
  type WebhookResolver,
} from '../../../src/subsystems/webhooks/webhook-destination.js';
import { failureClass } from '../../../src/subsystems/webhooks/webhook-failure-class.js';
import { guardedWebhookPost } from '../../../src/subsystems/webhooks/webhook-post.js';

const GATEWAY = 'http://127.0.0.1:7420';

/** A resolver answering from a table; a name not in it does not resolve. */
function table(answers: Record<string, string[]>): WebhookResolver {
  return (name) =>
    answers[name] === undefined
      ? Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' }))
      : Promise.resolve(answers[name]);
}

const resolve = table({
  'rebind.example': ['127.0.0.1'],
  'mixed.example': ['93.184.216.34', '10.1.2.3'],
  'v6.example': ['fd00::5'],
  'public.example': ['93.184.216.34', '2606:2800:220:1::1'],
});

function policy(allowPrivate: boolean): DestinationPolicy {
  return { allowPrivate, ownAddresses: () => gatewayAddresses(GATEWAY), resolve };
}

const REFUSED = [
  'http://127.0.0.1/hook',
  'http://127.9.9.9:8080/hook',
  'http://2130706433/hook', // 127.0.0.1 written as a number
  'http://10.0.0.1/hook',
  'http://172.16.0.1/hook',
  'http://172.31.255.254/hook',
  'http://192.168.1.10/hook',
  'http://100.64.0.1/hook',
  'http://100.127.255.254/hook',
  'http://169.254.169.254/latest/meta-data',
  'http://0.0.0.0/hook',
  'http://[::]/hook',
  'http://[::1]/hook',
  'http://[fc00::1]/hook',
  'http://[fd12:3456::1]/hook',
  'http://[fe80::1]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://[::ffff:10.0.0.1]/hook',
  'http://[::ffff:169.254.169.254]/hook',
  'http://localhost:9000/hook',
  'http://api.localhost/hook',
  'http://rebind.example/hook',
  'http://mixed.example/hook',
  'https://v6.example/hook',
];

describe('checkDestination', () => {
  it.each(REFUSED)('refuses %s', async (url) => {
    await expect(checkDestination(url, policy(false))).rejects.toMatchObject({
      name: 'DestinationRefused',
      code: 'EPRIVATEADDRESS',
    });
  });

  it.each(REFUSED)('allows %s with VIGIL_WEBHOOK_ALLOW_PRIVATE', async (url) => {
    await expect(checkDestination(url, policy(true))).resolves.toBeUndefined();
  });

  it.each([
    'https://93.184.216.34/hook',
    'http://100.128.0.1/hook',
    'http://172.32.0.1/hook',
    'http://[2606:2800:220:1::1]/hook',
    'https://public.example/hook',
    'https://not-yet-in-dns.example/hook', // checked at each connection instead
  ])('allows the public destination %s', async (url) => {
    await expect(checkDestination(url, policy(false))).resolves.toBeUndefined();
  });

  it.each([`${GATEWAY}/rpc?token=abc`, 'http://localhost:7420/?token=abc', 'http://[::1]:7420/events?token=abc'])(
    'refuses the gateway itself (%s) even with VIGIL_WEBHOOK_ALLOW_PRIVATE',
    async (url) => {
      for (const allowPrivate of [false, true]) {
        await expect(checkDestination(url, policy(allowPrivate))).rejects.toMatchObject({ code: 'EPRIVATEADDRESS' });
      }
    },
  );

  it('treats IPv4-mapped IPv6 as the IPv4 address it carries', () => {
    expect(isPrivateAddress('::ffff:7f00:1')).toBe(true);
    expect(isPrivateAddress('::ffff:5db8:d822')).toBe(false);
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
  });
});

describe('maskUrlCredentials', () => {
  it('masks a user name and password, and leaves a URL without them as it is', () => {
    expect(maskUrlCredentials('https://alice:s3cret@hooks.example/in?x=1')).toBe(
      'https://***:***@hooks.example/in?x=1',
    );
    expect(maskUrlCredentials('https://token@hooks.example/in')).toBe('https://***@hooks.example/in');
    expect(maskUrlCredentials('https://hooks.example/in')).toBe('https://hooks.example/in');
  });
});

describe('failureClass', () => {
  it.each([
    ['HTTP 404', 404, 'http_4xx'],
    ['HTTP 503', 503, 'http_5xx'],
    ['HTTP 302', 302, 'http_3xx'],
    ['connect ECONNREFUSED 203.0.113.9:443', undefined, 'refused'],
    ['no answer within 10000 ms', undefined, 'timeout'],
    ['getaddrinfo ENOTFOUND hooks.example', undefined, 'dns'],
    ['self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)', undefined, 'tls'],
    ['socket hang up (ECONNRESET)', undefined, 'reset'],
    ['127.0.0.1 is a loopback, link-local or private address (EPRIVATEADDRESS)', undefined, 'private_address'],
    ['something else', undefined, 'network'],
  ] as const)('classes %s as %s', (error, status, expected) => {
    expect(failureClass(error, status)).toBe(expected);
  });
});

describe('guardedWebhookPost', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((done) => (server === undefined ? done(undefined) : server.close(done)));
    server = undefined;
  });

  async function receiver(): Promise<{ port: number; hits: () => number }> {
    let hits = 0;
    server = createServer((_req, res) => {
      hits += 1;
      res.writeHead(204).end();
    });
    await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
    return { port: (server.address() as AddressInfo).port, hits: () => hits };
  }

  const request = (url: string) => ({ url, headers: {}, body: '{}', signal: AbortSignal.timeout(5000) });

  it('refuses at connect a name whose DNS answer turned private after webhooks.add, and never connects', async () => {
    const local = await receiver();
    const url = `http://hook.example:${local.port}/in`;
    // The answer at add time is public; by the time of the POST, the name points at this host.
    const answers = [['93.184.216.34'], ['127.0.0.1']];
    const changing: WebhookResolver = () => Promise.resolve(answers.shift() ?? ['127.0.0.1']);
    const strict: DestinationPolicy = { allowPrivate: false, ownAddresses: () => [], resolve: changing };
    await expect(checkDestination(url, strict)).resolves.toBeUndefined();
    await expect(guardedWebhookPost(strict)(request(url))).rejects.toMatchObject({ code: 'EPRIVATEADDRESS' });
    expect(local.hits()).toBe(0);
  });

  it('connects to the address it checked: the resolver answer, not a second lookup', async () => {
    const local = await receiver();
    const allowed: DestinationPolicy = {
      allowPrivate: true,
      ownAddresses: () => [],
      resolve: () => Promise.resolve(['127.0.0.1']),
    };
    const response = await guardedWebhookPost(allowed)(request(`http://hook.example:${local.port}/in`));
    expect(response.status).toBe(204);
    expect(local.hits()).toBe(1);
  });

  it('refuses a private IP in the URL before connecting', async () => {
    const local = await receiver();
    const strict: DestinationPolicy = { allowPrivate: false, ownAddresses: () => [] };
    await expect(guardedWebhookPost(strict)(request(`http://127.0.0.1:${local.port}/in`))).rejects.toMatchObject({
      code: 'EPRIVATEADDRESS',
    });
    expect(local.hits()).toBe(0);
  });
});
