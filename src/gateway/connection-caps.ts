/**
 * The gateway's connection caps: WebSockets, SSE streams and `/mcp` exchanges held open at once, in all
 * (`VIGIL_MAX_CONNECTIONS`) and per token (half of it), since the rate limit is per connection and more connections
 * would otherwise buy more throughput.
 */

/** `VIGIL_MAX_CONNECTIONS`' default: far more than a dashboard, a few CLIs and MCP hosts hold, far fewer than a flood. */
export const DEFAULT_MAX_CONNECTIONS = 256;

/** Why a connection was refused, as `vigil_gateway_connections_refused_total` labels it. */
export type ConnectionRefusal = 'gateway_full' | 'token_full';

/** What asking for a connection came to: a slot to release when it closes, or a refusal. */
export type ConnectionGrant = { kind: 'opened'; release: () => void } | { kind: 'refused'; reason: ConnectionRefusal };

/** The most one token holds: half the whole (at least one), so no one token, a leaked read token above all, fills it. */
export function perTokenCap(max: number): number {
  return Math.max(1, Math.ceil(max / 2));
}

/** Counts open connections in all and per token (`null`: the daemon's own token). */
export class ConnectionCaps {
  private total = 0;
  private readonly byToken = new Map<string | null, number>();
  readonly perToken: number;

  constructor(readonly max: number = DEFAULT_MAX_CONNECTIONS) {
    this.perToken = perTokenCap(max);
  }

  /** A slot for a connection of `tokenId`, or why there is none. `release` may be called more than once. */
  open(tokenId: string | null): ConnectionGrant {
    // The token's own cap first: that one its holder can do something about.
    const held = this.byToken.get(tokenId) ?? 0;
    if (held >= this.perToken) return { kind: 'refused', reason: 'token_full' };
    if (this.total >= this.max) return { kind: 'refused', reason: 'gateway_full' };
    this.total += 1;
    this.byToken.set(tokenId, held + 1);
    let released = false;
    return {
      kind: 'opened',
      release: () => {
        if (released) return;
        released = true;
        this.total -= 1;
        const left = (this.byToken.get(tokenId) ?? 1) - 1;
        if (left === 0) this.byToken.delete(tokenId);
        else this.byToken.set(tokenId, left);
      },
    };
  }

  /** Connections open now. */
  count(): number {
    return this.total;
  }
}

/** The sentence a refusal is answered with (HTTP 503), naming the cap and the variable. */
export function connectionRefusalMessage(reason: ConnectionRefusal, caps: ConnectionCaps): string {
  return reason === 'gateway_full'
    ? `the gateway holds ${caps.max} connections, the most VIGIL_MAX_CONNECTIONS allows; retry once one has closed`
    : `this token holds ${caps.perToken} connections, the most one token may (half of VIGIL_MAX_CONNECTIONS); close one first`;
}
