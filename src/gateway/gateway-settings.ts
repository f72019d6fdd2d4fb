/**
 * What a gateway's options amount to before it starts: each connection's limits (the rate limit, subscriptions,
 * buffers) and the front door's Host/Origin policy for a port. Pure; http-server.ts builds its routes from them.
 */
import { publicUrlHost, publicUrlOrigin } from '../protocol/request-origin.js';
import type { GatewayOptions } from './gateway-options.js';
import { originPolicy, type OriginPolicy } from './request-origin.js';
import type { ConnectionLimits } from './rpc-connection.js';
import { DEFAULT_RATE_LIMIT, type RateLimit } from './token-bucket.js';

/** The limits every connection (WebSocket, SSE stream, /mcp session) of the gateway runs under. */
export function connectionLimitsOf(options: GatewayOptions): { rateLimit: RateLimit; limits: ConnectionLimits } {
  const subscriberBuffer = options.subscriberBuffer ?? 1000;
  const rateLimit: RateLimit = {
    perSecond: options.rpcRateLimit ?? DEFAULT_RATE_LIMIT.perSecond,
    burst: options.rpcRateBurst ?? DEFAULT_RATE_LIMIT.burst,
  };
  return {
    rateLimit,
    limits: {
      maxSubscriptions: options.maxSubscriptions ?? 16,
      subscriberBuffer,
      highWaterBytes: options.highWaterBytes ?? 256 * 1024,
      maxDropped: options.maxDropped ?? subscriberBuffer * 100,
      maxInFlight: 64,
      rateLimit,
    },
  };
}

/**
 * The front door's policy for the gateway listening on `port` (DNS rebinding: Host and Origin before anything else):
 * its own names and origins, the allow-lists, and `VIGIL_PUBLIC_URL`'s host and origin.
 */
export function originPolicyFor(options: GatewayOptions, port: number): OriginPolicy {
  return originPolicy({
    boundHost: options.host,
    port,
    allowedHosts: [
      ...(options.allowedHosts ?? []),
      ...(options.publicUrl === undefined ? [] : [publicUrlHost(options.publicUrl)]),
    ],
    allowedOrigins: [
      ...(options.allowedOrigins ?? []),
      ...(options.publicUrl === undefined ? [] : [publicUrlOrigin(options.publicUrl)]),
    ],
  });
}
