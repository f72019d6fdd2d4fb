/**
 * Where a webhook may send (CONTRACT §16): loopback, link-local, private and unspecified addresses (and their
 * IPv4-mapped forms) are refused unless VIGIL_WEBHOOK_ALLOW_PRIVATE is set, and the gateway's own address always; a
 * host name is resolved and every address it answers with is checked, at `webhooks.add` and again at each connection.
 */
import { promises as dns } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Resolves a host name to every address it has (the default is the system's resolver, as connections use it). */
export type WebhookResolver = (hostname: string) => Promise<string[]>;

/** What a destination is checked against. */
export interface DestinationPolicy {
  /** VIGIL_WEBHOOK_ALLOW_PRIVATE: loopback, link-local and private addresses are accepted. */
  allowPrivate: boolean;
  /** The gateway's own addresses as `host:port` (an IPv6 host in brackets): refused whatever `allowPrivate` says. */
  ownAddresses: () => readonly string[];
  resolve?: WebhookResolver;
}

/** The system resolver, every address (`dns.lookup` with `all`), as `net.connect` would see them. */
export const systemResolver: WebhookResolver = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map((answer) => answer.address);

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 included
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast included
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // ULA
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address an IPv4-mapped (`::ffff:a.b.c.d`) or IPv4-compatible IPv6 address carries, or undefined. */
function embeddedIPv4(ip: string): string | undefined {
  const groups = expandIPv6(ip);
  if (groups === undefined) return undefined;
  const head = groups.slice(0, 5).every((group) => group === 0);
  if (!head || (groups[5] !== 0xffff && groups[5] !== 0)) return undefined;
  if (groups[5] === 0 && groups[6] === 0) return undefined; // `::` and `::1`, checked as IPv6
  const [high = 0, low = 0] = groups.slice(6);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included), or undefined when it is not one. */
function expandIPv6(ip: string): number[] | undefined {
  if (isIP(ip) !== 6) return undefined;
  let text = ip.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1] !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left = '', right] = text.split('::');
  const head = left === '' ? [] : left.split(':');
  const tail = right === undefined || right === '' ? [] : right.split(':');
  const fill = right === undefined ? [] : Array<string>(8 - head.length - tail.length).fill('0');
  return [...head, ...fill, ...tail].map((group) => parseInt(group, 16));
}

/** True when `ip` is loopback, link-local, private, CGNAT, unspecified, multicast or reserved (mapped forms too). */
export function isPrivateAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return blocked.check(ip, 'ipv4');
  if (family !== 6) return false;
  const inner = embeddedIPv4(ip);
  return inner === undefined ? blocked.check(ip, 'ipv6') : blocked.check(inner, 'ipv4');
}

/** Why a destination was refused: the sentence a `-32602` or a failed attempt carries. */
export class DestinationRefused extends Error {
  override readonly name = 'DestinationRefused';
  /** The code a failed attempt carries (`describePostError`), classed `private_address` in `webhook.failing`. */
  readonly code = 'EPRIVATEADDRESS';
}

/** A URL's host without IPv6 brackets, and its port (the scheme's default when it names none). */
export function urlHostPort(url: URL): { host: string; port: string } {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  return { host, port };
}

/** `host:port` as `ownAddresses` writes it. */
export function hostPort(host: string, port: string | number): string {
  return isIP(host) === 6 ? `[${host.toLowerCase()}]:${port}` : `${host.toLowerCase()}:${port}`;
}

/**
 * Throws `DestinationRefused` for an address `ip` (reached at `port`) the policy refuses; `name` is the host as the URL
 * wrote it, for the sentence.
 */
export function checkAddress(ip: string, port: string, name: string, policy: DestinationPolicy): void {
  const own = new Set(policy.ownAddresses());
  if (own.has(hostPort(ip, port)) || own.has(hostPort(name, port))) {
    throw new DestinationRefused(`${name} is the gateway's own address; a webhook cannot post to Vigil itself`);
  }
  if (policy.allowPrivate || !isPrivateAddress(ip)) return;
  const via = ip === name ? '' : ` (${name} resolves to ${ip})`;
  throw new DestinationRefused(
    `${ip} is a loopback, link-local or private address${via}; set VIGIL_WEBHOOK_ALLOW_PRIVATE=true to allow it`,
  );
}

/**
 * Checks a URL's destination: its IP, or every address its host name resolves to; throws `DestinationRefused`. With
 * `allowPrivate` only the gateway's own address is refused, so the name is not resolved.
 */
export async function checkDestination(url: string, policy: DestinationPolicy): Promise<void> {
  const { host, port } = urlHostPort(new URL(url));
  if (isIP(host) !== 0) {
    checkAddress(host, port, host, policy);
    return;
  }
  const name = host.toLowerCase().replace(/\.$/, '');
  if (!policy.allowPrivate && (name === 'localhost' || name.endsWith('.localhost'))) {
    throw new DestinationRefused(`${host} is loopback; set VIGIL_WEBHOOK_ALLOW_PRIVATE=true to allow it`);
  }
  checkAddress(name, port, name, { ...policy, allowPrivate: true });
  // `.invalid` never resolves (RFC 6761): nothing to ask (the simulator's receivers are named so).
  if (policy.allowPrivate || name.endsWith('.invalid')) return;
  let addresses: string[];
  try {
    addresses = await (policy.resolve ?? systemResolver)(name);
  } catch {
    // Not resolvable now (a receiver not yet in DNS): nothing to check here; every connection is checked all the same.
    return;
  }
  for (const ip of addresses) checkAddress(ip, port, name, policy);
}

/**
 * The gateway's own addresses when it listens at `url`: its host and port, and for a wildcard host (0.0.0.0, ::)
 * every address of this machine at that port.
 */
export function gatewayAddresses(url: string): string[] {
  const { host, port } = urlHostPort(new URL(url));
  const own = [hostPort(host, port)];
  const wildcard = host === '0.0.0.0' || host === '::';
  if (wildcard || host === 'localhost' || /^127\.|^::1$/.test(host)) {
    own.push(...['localhost', '127.0.0.1', '::1'].map((loopback) => hostPort(loopback, port)));
  }
  if (wildcard) {
    for (const nets of Object.values(networkInterfaces())) {
      for (const net of nets ?? []) own.push(hostPort(net.address, port));
    }
  }
  return own;
}

/** A URL with any user name and password masked (`https://***:***@host/…`), as every answer shows it. */
export function maskUrlCredentials(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.username === '' && parsed.password === '') return url;
  if (parsed.username !== '') parsed.username = '***';
  if (parsed.password !== '') parsed.password = '***';
  return parsed.toString();
}
