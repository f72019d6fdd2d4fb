import { describe, expect, it } from 'vitest';
import {
  createOriginGuard,
  judgeRequestOrigin,
  originPolicy,
  type OriginPolicy,
} from '../../src/gateway/request-origin.js';
import { isVigilError } from '../../src/errors.js';
import { loadConfig } from '../../src/config.js';
import {
  AllowedHostsSchema,
  AllowedOriginsSchema,
  parseHostAuthority,
  parseOrigin,
} from '../../src/protocol/request-origin.js';
import type { IncomingMessage } from 'node:http';
import type { VigilLogger } from '../../src/shared/logger.js';

const PORT = 7420;
const local = originPolicy({ boundHost: '127.0.0.1', port: PORT });
const judge = (policy: OriginPolicy, host: string | undefined, origin?: string) =>
  judgeRequestOrigin(policy, host, origin);

describe('parseHostAuthority', () => {
  it("reads a name, an IPv4 address or a bracketed IPv6 address, with or without a port, in the URL parser's spelling", () => {
    expect(parseHostAuthority('LocalHost:7420')).toEqual({ name: 'localhost', port: 7420 });
    expect(parseHostAuthority('[0:0:0:0:0:0:0:1]:7420')).toEqual({ name: '[::1]', port: 7420 });
    expect(parseHostAuthority('127.1')).toEqual({ name: '127.0.0.1', port: undefined });
    expect(parseHostAuthority('vigil.example.com')).toEqual({ name: 'vigil.example.com', port: undefined });
  });

  it('refuses what is more or less than a host: a user, a path, a bare IPv6, a bad port, nothing', () => {
    for (const text of [
      'evil@127.0.0.1:7420',
      '127.0.0.1:7420/x',
      '::1',
      'localhost:0',
      'localhost:70000',
      '',
      'a b',
      'a,b',
    ])
      expect(parseHostAuthority(text), text).toBeUndefined();
  });
});

describe('parseOrigin', () => {
  it('writes an http(s) origin as a browser sends it, the default port left out', () => {
    expect(parseOrigin('http://LOCALHOST:7420')).toBe('http://localhost:7420');
    expect(parseOrigin('https://vigil.example.com:443/')).toBe('https://vigil.example.com');
    expect(parseOrigin('http://[::1]:80')).toBe('http://[::1]');
  });

  it('refuses null, a path, another scheme and a user name', () => {
    for (const text of ['null', 'http://a.example/path', 'file://', 'ws://localhost:7420', 'http://u@localhost:7420'])
      expect(parseOrigin(text), text).toBeUndefined();
  });
});

describe('judgeRequestOrigin', () => {
  it("admits the loopback names with the gateway's port, IPv6 included, and a request without an Origin", () => {
    for (const host of ['127.0.0.1:7420', 'localhost:7420', '[::1]:7420', 'LOCALHOST:7420'])
      expect(judge(local, host), host).toEqual({ ok: true });
  });

  it("refuses a rebinding page's Host whatever its Origin, and says it was the Host", () => {
    expect(judge(local, 'evil.example:7420', 'http://evil.example')).toEqual({
      ok: false,
      header: 'host',
      value: 'evil.example:7420',
    });
    expect(judge(local, 'evil.example:7420')).toMatchObject({ ok: false, header: 'host' });
  });

  it('refuses a loopback name on another port, and a Host without a port unless the gateway listens on 80', () => {
    expect(judge(local, '127.0.0.1:7421')).toMatchObject({ ok: false, header: 'host' });
    expect(judge(local, '127.0.0.1')).toMatchObject({ ok: false, header: 'host' });
    const on80 = originPolicy({ boundHost: '127.0.0.1', port: 80 });
    expect(judge(on80, 'localhost')).toEqual({ ok: true });
    expect(judge(on80, 'localhost:80', 'http://localhost')).toEqual({ ok: true });
  });

  it('refuses a request without a Host (every browser sends one)', () => {
    expect(judge(local, undefined)).toEqual({ ok: false, header: 'host', value: '' });
  });

  it("admits the gateway's own origin from any loopback name, the dashboard page's own requests", () => {
    for (const origin of ['http://127.0.0.1:7420', 'http://localhost:7420', 'http://[::1]:7420'])
      expect(judge(local, '127.0.0.1:7420', origin), origin).toEqual({ ok: true });
  });

  it("refuses another origin, null, https on the gateway's port and another port, naming the Origin", () => {
    for (const origin of ['http://evil.example', 'null', 'https://localhost:7420', 'http://localhost:7421'])
      expect(judge(local, 'localhost:7420', origin), origin).toEqual({ ok: false, header: 'origin', value: origin });
  });

  it('admits the bound address when it is not loopback, but assumes no address for 0.0.0.0 or ::', () => {
    const lan = originPolicy({ boundHost: '192.168.1.5', port: PORT });
    expect(judge(lan, '192.168.1.5:7420', 'http://192.168.1.5:7420')).toEqual({ ok: true });
    expect(judge(lan, 'localhost:7420')).toEqual({ ok: true });
    const v6 = originPolicy({ boundHost: 'fd00::5', port: PORT });
    expect(judge(v6, '[fd00::5]:7420')).toEqual({ ok: true });
    expect(judge(originPolicy({ boundHost: '[fd00::5]', port: PORT }), '[fd00::5]:7420')).toEqual({ ok: true });
    for (const boundHost of ['0.0.0.0', '::']) {
      const any = originPolicy({ boundHost, port: PORT });
      expect(judge(any, '0.0.0.0:7420'), boundHost).toMatchObject({ ok: false, header: 'host' });
      expect(judge(any, '[::]:7420'), boundHost).toMatchObject({ ok: false, header: 'host' });
      expect(judge(any, '192.168.1.5:7420'), boundHost).toMatchObject({ ok: false, header: 'host' });
      expect(judge(any, '127.0.0.1:7420'), boundHost).toEqual({ ok: true });
    }
  });

  it('admits VIGIL_ALLOWED_HOSTS: a name without a port on any port or none, one with a port on that port only', () => {
    const proxied = originPolicy({
      boundHost: '0.0.0.0',
      port: PORT,
      allowedHosts: ['Vigil.Example.com', '10.0.0.5:8080'],
      allowedOrigins: ['https://vigil.example.com/'],
    });
    expect(judge(proxied, 'vigil.example.com', 'https://vigil.example.com')).toEqual({ ok: true });
    expect(judge(proxied, 'vigil.example.com:443', 'https://vigil.example.com:443')).toEqual({ ok: true });
    expect(judge(proxied, '10.0.0.5:8080')).toEqual({ ok: true });
    expect(judge(proxied, '10.0.0.5:7420')).toMatchObject({ ok: false, header: 'host' });
    expect(judge(proxied, '10.0.0.5')).toMatchObject({ ok: false, header: 'host' });
    // An allowed host does not make its origin allowed: the two lists are separate on purpose.
    expect(judge(proxied, '10.0.0.5:8080', 'http://10.0.0.5:8080')).toMatchObject({ ok: false, header: 'origin' });
  });

  it('throws CONFIG_INVALID naming the variable for an entry given in code that is not a host or an origin', () => {
    const thrown = (fn: () => unknown): unknown => {
      try {
        fn();
      } catch (err) {
        return err;
      }
      return undefined;
    };
    const badHost = thrown(() => originPolicy({ boundHost: '127.0.0.1', port: PORT, allowedHosts: ['a/b'] }));
    expect(isVigilError(badHost, 'CONFIG_INVALID') && badHost.data).toEqual({
      variable: 'VIGIL_ALLOWED_HOSTS',
      value: 'a/b',
    });
    const badOrigin = thrown(() => originPolicy({ boundHost: '127.0.0.1', port: PORT, allowedOrigins: ['null'] }));
    expect(isVigilError(badOrigin, 'CONFIG_INVALID') && badOrigin.data).toEqual({
      variable: 'VIGIL_ALLOWED_ORIGINS',
      value: 'null',
    });
  });
});

describe('the allow-list schemas', () => {
  it('keep valid entries as written and name the first invalid one with what is allowed', () => {
    expect(AllowedHostsSchema.parse(['vigil.example.com', '[::1]:8080'])).toEqual(['vigil.example.com', '[::1]:8080']);
    const hosts = AllowedHostsSchema.safeParse(['ok.example', 'http://x.example']);
    expect(hosts.error?.issues[0]?.message).toMatch(
      /^"http:\/\/x.example" is not a host: expected a comma-separated list/,
    );
    const origins = AllowedOriginsSchema.safeParse(['vigil.example.com']);
    expect(origins.error?.issues[0]?.message).toMatch(
      /^"vigil.example.com" is not an origin: expected a comma-separated list of http\(s\) origins/,
    );
  });
});

describe('VIGIL_ALLOWED_HOSTS and VIGIL_ALLOWED_ORIGINS', () => {
  it('are read as comma lists and an invalid entry is a CONFIG_INVALID naming the variable, the value and what is allowed', () => {
    expect(
      loadConfig({
        VIGIL_ALLOWED_HOSTS: 'vigil.example.com, [::1]:8080,',
        VIGIL_ALLOWED_ORIGINS: 'https://vigil.example.com',
      }),
    ).toMatchObject({
      allowedHosts: ['vigil.example.com', '[::1]:8080'],
      allowedOrigins: ['https://vigil.example.com'],
    });
    expect(() => loadConfig({ VIGIL_ALLOWED_ORIGINS: 'null' })).toThrow(
      'VIGIL_ALLOWED_ORIGINS="null" is invalid: "null" is not an origin: expected a comma-separated list of http(s) origins',
    );
    expect(() => loadConfig({ VIGIL_ALLOWED_HOSTS: 'a b' })).toThrow(
      'VIGIL_ALLOWED_HOSTS="a b" is invalid: "a b" is not a host: expected a comma-separated list of host names',
    );
  });
});

describe('createOriginGuard', () => {
  const request = (host: string, remoteAddress = '127.0.0.1') =>
    ({ headers: { host, origin: 'http://evil.example' }, socket: { remoteAddress } }) as unknown as IncomingMessage;

  it('logs a refusal naming the header and the path, never the query, once per address and header per interval with the count', () => {
    const lines: { fields: Record<string, unknown>; msg: string }[] = [];
    const log = {
      warn: (fields: Record<string, unknown>, msg: string) => lines.push({ fields, msg }),
    } as unknown as VigilLogger;
    let now = 0;
    const guard = createOriginGuard(() => local, log, { everyMs: 1000, now: () => now });
    const url = new URL('http://evil.example:7420/events?token=secret-value');
    for (let i = 0; i < 5; i += 1) expect(guard(request('evil.example:7420'), url)).toMatchObject({ ok: false });
    expect(guard(request('localhost:7420'), url)).toEqual({
      ok: false,
      header: 'origin',
      value: 'http://evil.example',
    });
    now = 1000;
    guard(request('evil.example:7420'), url);
    expect(lines.map((line) => [line.msg, line.fields['header'], line.fields['refusals']])).toEqual([
      ['gateway refused a request: Host not allowed', 'host', 1],
      ['gateway refused a request: Origin not allowed', 'origin', 1],
      ['gateway refused a request: Host not allowed', 'host', 5],
    ]);
    expect(lines[0]!.fields).toMatchObject({ path: '/events', value: 'evil.example:7420', remoteAddress: '127.0.0.1' });
    expect(JSON.stringify(lines)).not.toContain('secret-value');
  });
});
