/**
 * Whether a request comes from where the gateway is (CONTRACT §4): its `Host` must name the gateway and its `Origin`,
 * if it has one, must be the gateway's own, so a page on another site that rebinds its name to 127.0.0.1 reaches
 * nothing, not even `/healthz`. Checked on every request and upgrade, before the token.
 */
import type { IncomingMessage } from 'node:http';
import { VigilError } from '../errors.js';
import { normalHostName, parseHostAuthority, parseOrigin, type HostAuthority } from '../protocol/request-origin.js';
import type { VigilLogger } from '../shared/logger.js';

/** The names the gateway answers to and the origins it serves, for one listening port. */
export interface OriginPolicy {
  /** Hosts accepted with the gateway's port only (loopback names, the bound address). */
  readonly ownHosts: ReadonlySet<string>;
  readonly port: number;
  /** `VIGIL_ALLOWED_HOSTS`, parsed: a port-less entry admits its name on any port. */
  readonly allowedHosts: readonly HostAuthority[];
  /** The gateway's own origins and `VIGIL_ALLOWED_ORIGINS`, as browsers write them. */
  readonly origins: ReadonlySet<string>;
}

/** The request's Host and Origin pass, or which of the two does not and what it said. */
export type OriginVerdict =
  { readonly ok: true } | { readonly ok: false; readonly header: 'host' | 'origin'; readonly value: string };

/** The names every gateway answers to: its machine's loopback, which a browser reaches only by these names. */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const;

// Listening on every address: which addresses those are is not known in general (interfaces come and go), so none is
// assumed; the loopback names and VIGIL_ALLOWED_HOSTS remain.
const WILDCARD_HOSTS = new Set(['0.0.0.0', '[::]']);

/** How to build a policy: the address given to listen on (`VIGIL_HOST`), the port bound, and the two allow-lists. */
export interface OriginPolicyOptions {
  boundHost: string;
  port: number;
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
}

/** The policy of a gateway listening on `boundHost:port`. Throws CONFIG_INVALID for an entry that is not a host or origin. */
export function originPolicy(options: OriginPolicyOptions): OriginPolicy {
  const { port } = options;
  // `fd00::5` as VIGIL_HOST is `[fd00::5]` in a Host header.
  const { boundHost } = options;
  const bound = normalHostName(boundHost.includes(':') && !boundHost.startsWith('[') ? `[${boundHost}]` : boundHost);
  const ownHosts = new Set<string>(LOOPBACK_HOSTS);
  if (bound !== undefined && !WILDCARD_HOSTS.has(bound)) ownHosts.add(bound);
  const allowedHosts = (options.allowedHosts ?? []).map((entry) =>
    parsed(parseHostAuthority(entry), 'VIGIL_ALLOWED_HOSTS', entry),
  );
  const origins = new Set([...ownHosts].map((name) => new URL(`http://${name}:${port}`).origin));
  for (const entry of options.allowedOrigins ?? [])
    origins.add(parsed(parseOrigin(entry), 'VIGIL_ALLOWED_ORIGINS', entry));
  return { ownHosts, port, allowedHosts, origins };
}

function parsed<T>(value: T | undefined, variable: string, entry: string): T {
  if (value !== undefined) return value;
  throw new VigilError('CONFIG_INVALID', `${variable} holds ${JSON.stringify(entry)}, which is not valid there.`, {
    data: { variable, value: entry },
  });
}

/**
 * Judges a request's `Host` and `Origin` header values. A Host without a port means port 80 (RFC 9110 §7.2: an
 * HTTP/1.1 client always writes the port unless it is the scheme's default), so it names this gateway only when it
 * listens on 80. No Host at all is refused: every browser sends one. No Origin is fine (same-origin GETs, curl,
 * the CLI); `null` is never an origin the gateway serves.
 */
export function judgeRequestOrigin(
  policy: OriginPolicy,
  host: string | undefined,
  origin: string | undefined,
): OriginVerdict {
  const authority = host === undefined ? undefined : parseHostAuthority(host);
  if (authority === undefined || !admitsHost(policy, authority))
    return { ok: false, header: 'host', value: host ?? '' };
  if (origin === undefined || isPolicyOrigin(policy, origin)) return { ok: true };
  return { ok: false, header: 'origin', value: origin };
}

/** Whether `origin` (an `Origin` header's value) is one the gateway serves: its own, or an allowed one. */
export function isPolicyOrigin(policy: OriginPolicy, origin: string): boolean {
  const normal = parseOrigin(origin);
  return normal !== undefined && policy.origins.has(normal);
}

function admitsHost(policy: OriginPolicy, { name, port }: HostAuthority): boolean {
  if (policy.ownHosts.has(name) && (port ?? 80) === policy.port) return true;
  return policy.allowedHosts.some((entry) => entry.name === name && (entry.port === undefined || entry.port === port));
}

/** The sentence a refused request gets: the header and what it said, and the variable that would admit it. */
export function refusalMessage(verdict: Extract<OriginVerdict, { ok: false }>): string {
  const shown = JSON.stringify(verdict.value.slice(0, 200));
  return verdict.header === 'host'
    ? `Forbidden: the Host header ${shown} does not name this gateway (a reverse proxy's name belongs in VIGIL_ALLOWED_HOSTS).`
    : `Forbidden: the Origin ${shown} is not this gateway's (a reverse proxy's origin belongs in VIGIL_ALLOWED_ORIGINS).`;
}

/**
 * The check the HTTP server runs first on every request and upgrade: the verdict, and a warn line for each refusal
 * naming the header, its value, the remote address and the path (never the query, which may carry the token), at
 * most one per address and header per `everyMs` with the count since the last, so a page retrying in a loop fills no
 * disk.
 */
export function createOriginGuard(
  policy: () => OriginPolicy,
  log: VigilLogger,
  options: { everyMs?: number; now?: () => number } = {},
): (req: IncomingMessage, url: URL) => OriginVerdict {
  const everyMs = options.everyMs ?? 10_000;
  const now = options.now ?? Date.now;
  // Bounded: the oldest address is forgotten past 1024, so a scan from many addresses holds no memory.
  const seen = new Map<string, { loggedAt: number; unlogged: number }>();
  return (req, url) => {
    const verdict = judgeRequestOrigin(policy(), req.headers.host, req.headers.origin);
    if (verdict.ok) return verdict;
    const remoteAddress = req.socket?.remoteAddress ?? 'unknown';
    const key = `${verdict.header} ${remoteAddress}`;
    let entry = seen.get(key);
    if (entry === undefined) {
      if (seen.size >= 1024) seen.delete(seen.keys().next().value!);
      entry = { loggedAt: Number.NEGATIVE_INFINITY, unlogged: 0 };
      seen.set(key, entry);
    }
    entry.unlogged += 1;
    const at = now();
    if (at - entry.loggedAt >= everyMs) {
      const { header, value } = verdict;
      log.warn(
        { remoteAddress, path: url.pathname, header, value: value.slice(0, 200), refusals: entry.unlogged },
        `gateway refused a request: ${header === 'host' ? 'Host' : 'Origin'} not allowed`,
      );
      entry.loggedAt = at;
      entry.unlogged = 0;
    }
    return verdict;
  };
}
