/**
 * Whether the receiving server vouches for a mail's From (RFC 8601 `Authentication-Results`): DMARC passed, or SPF or
 * DKIM passed for a domain aligned with the From's. Only the topmost header counts (the one the agent's own server
 * added last; a sender can write any header below it), or, with `authServId` set, the first from that server, which
 * must then be there. A mail without the header is neither vouched for nor refused: the server does not check.
 */

/** What the headers say about the From: `pass`, `fail`, or `unchecked` (no header the agent trusts). */
export type AuthVerdict = 'pass' | 'fail' | 'unchecked';

interface AuthResult {
  method: string;
  result: string;
  props: Map<string, string>;
}

/**
 * The verdict for a mail from `fromDomain` given its `Authentication-Results` values, topmost first. `authServId`:
 * the agent's server's id, when the operator pinned it.
 */
export function authVerdict(values: readonly string[], fromDomain: string, authServId?: string): AuthVerdict {
  const parsed = values.map(parseHeader);
  const trusted =
    authServId === undefined ? parsed[0] : parsed.find((each) => each.servId === authServId.toLowerCase());
  if (trusted === undefined) return authServId === undefined ? 'unchecked' : 'fail';
  const domain = fromDomain.toLowerCase();
  const passes = trusted.results.some(({ method, result, props }) => {
    if (result !== 'pass') return false;
    if (method === 'dmarc') {
      const from = props.get('header.from');
      return from === undefined || from === domain;
    }
    if (method === 'dkim') return aligned(props.get('header.d') ?? domainOf(props.get('header.i')), domain);
    if (method === 'spf') return aligned(domainOf(props.get('smtp.mailfrom')) ?? props.get('smtp.helo'), domain);
    return false;
  });
  return passes ? 'pass' : 'fail';
}

// Relaxed alignment (RFC 7489): the same domain, or the From's a subdomain of the one authenticated.
function aligned(authenticated: string | undefined, fromDomain: string): boolean {
  if (authenticated === undefined || authenticated === '') return false;
  return fromDomain === authenticated || fromDomain.endsWith(`.${authenticated}`);
}

function domainOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const at = value.lastIndexOf('@');
  return at < 0 ? value : value.slice(at + 1);
}

function parseHeader(value: string): { servId: string; results: AuthResult[] } {
  // Comments in parentheses carry nothing to decide on; quoted values lose their quotes.
  const clean = value.replace(/\([^()]*\)/g, ' ').replace(/"([^"]*)"/g, '$1');
  const [head = '', ...parts] = clean.split(';');
  const servId = head.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  const results = parts.flatMap((part): AuthResult[] => {
    const [first, ...rest] = part.trim().split(/\s+/);
    const match = /^([a-z0-9-]+)=([a-z]+)$/i.exec(first ?? '');
    if (match === null) return [];
    const props = new Map<string, string>();
    for (const token of rest) {
      const eq = token.indexOf('=');
      if (eq > 0) props.set(token.slice(0, eq).toLowerCase(), token.slice(eq + 1).toLowerCase());
    }
    return [{ method: match[1]!.toLowerCase(), result: match[2]!.toLowerCase(), props }];
  });
  return { servId, results };
}
