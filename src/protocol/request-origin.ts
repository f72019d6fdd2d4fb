/**
 * The grammar of where a gateway request says it comes from (CONTRACT §4): a `Host` header's `name[:port]`, an
 * `Origin`'s `scheme://name[:port]`, and the `VIGIL_ALLOWED_HOSTS` / `VIGIL_ALLOWED_ORIGINS` entries that admit a
 * reverse proxy's. Names go through the WHATWG URL parser, so `LOCALHOST`, `[0:0::1]` and `127.1` compare as the
 * `localhost`, `[::1]` and `127.0.0.1` they are.
 */
import { z } from 'zod';

/** A host as a `Host` header names it: the name (lower case, IPv6 in brackets) and the port, if one was written. */
export interface HostAuthority {
  readonly name: string;
  readonly port: number | undefined;
}

// A bracketed IPv6 literal, or a name or IPv4 address without the characters that would make it more than a host.
const AUTHORITY = /^(\[[0-9A-Fa-f:.]+\]|[^\s/\\?#@:,[\]]+)(?::(\d{1,5}))?$/;

/** `text` as `name[:port]` (a `Host` header, an allowed-hosts entry), or undefined when it is not one. */
export function parseHostAuthority(text: string): HostAuthority | undefined {
  const match = AUTHORITY.exec(text.trim());
  if (match === null) return undefined;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  const name = normalHostName(match[1]!);
  return name === undefined ? undefined : { name, port };
}

/** A host name or address as the URL parser writes it (`[::1]`, `127.0.0.1`, `xn--…`), or undefined when invalid. */
export function normalHostName(name: string): string | undefined {
  try {
    const url = new URL(`http://${name}/`);
    return url.hostname === '' ? undefined : url.hostname;
  } catch {
    return undefined;
  }
}

/**
 * `text` as an origin (`http://localhost:7420`), written as the URL parser writes one (the scheme's default port
 * left out), or undefined when it is not an http(s) origin: `null`, a path, a user name or another scheme.
 */
export function parseOrigin(text: string): string | undefined {
  const trimmed = text.trim();
  // An Origin header never has a path; an entry may end in one slash, as origins are often copied from the address bar.
  if (!/^https?:\/\/[^/?#@\s]+\/?$/i.test(trimmed)) return undefined;
  try {
    const url = new URL(trimmed);
    return url.hostname === '' ? undefined : url.origin;
  } catch {
    return undefined;
  }
}

/** What `VIGIL_ALLOWED_HOSTS` should hold. */
export const ALLOWED_HOSTS_ALLOWED =
  'expected a comma-separated list of host names or addresses, each optionally with :port (vigil.example.com, 10.0.0.5:7420, [fd00::5]:7420)';

/** What `VIGIL_ALLOWED_ORIGINS` should hold. */
export const ALLOWED_ORIGINS_ALLOWED =
  'expected a comma-separated list of http(s) origins, scheme, host and optional port without a path (https://vigil.example.com, http://10.0.0.5:7420)';

/** `VIGIL_ALLOWED_HOSTS` once split: every entry a host, optionally with a port (kept as written; the gateway parses). */
export const AllowedHostsSchema = listOf(parseHostAuthority, 'a host', ALLOWED_HOSTS_ALLOWED);

/** `VIGIL_ALLOWED_ORIGINS` once split: every entry an http(s) origin (kept as written; the gateway parses). */
export const AllowedOriginsSchema = listOf(parseOrigin, 'an origin', ALLOWED_ORIGINS_ALLOWED);

// Strings in, strings out: a validated configuration parses again unchanged (configFromDefaults does).
function listOf(parse: (text: string) => unknown, what: string, allowed: string) {
  return z.array(z.string({ error: allowed }), { error: allowed }).superRefine((items, ctx) => {
    const wrong = items.find((item) => parse(item) === undefined);
    if (wrong !== undefined)
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(wrong)} is not ${what}: ${allowed}` });
  });
}

/** What `VIGIL_PUBLIC_URL` should hold. */
export const PUBLIC_URL_ALLOWED =
  'expected the http(s) URL a browser reaches the gateway at, without a query, fragment or user name (https://vigil.example.com, http://10.0.0.5:7420)';

/** True when `text` may be `VIGIL_PUBLIC_URL`: an http(s) URL with a host, optionally a path, nothing more. */
export function isPublicUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text.trim()) || /[?#]/.test(text)) return false;
  try {
    const url = new URL(text.trim());
    return url.hostname !== '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/**
 * `VIGIL_PUBLIC_URL`'s host as an allowed-hosts entry: `name:port` when the URL writes a port, else the bare name
 * (which matches any port: a proxy in front forwards `Host: name` for its default port).
 */
export function publicUrlHost(publicUrl: string): string {
  const url = new URL(publicUrl);
  return url.port === '' ? url.hostname : `${url.hostname}:${url.port}`;
}

/** `VIGIL_PUBLIC_URL`'s origin (a browser coming back from an authorization server may send it). */
export function publicUrlOrigin(publicUrl: string): string {
  return new URL(publicUrl).origin;
}
