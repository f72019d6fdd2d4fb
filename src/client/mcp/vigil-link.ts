/**
 * What the MCP server needs of Vigil: one RPC call and the event feed. The typed client (`VigilClient`) is one, so
 * `vigil mcp` relays over the wire; an in-process host could give another.
 */
import type { Observable } from 'rxjs';
import type { VigilEvent } from '../../protocol/events.schema.js';
import type { RpcMethodName, RpcParams, RpcResult } from '../../protocol/rpc-methods.js';

/** A live connection to the daemon, as the MCP tools use it. */
export interface VigilLink {
  call<M extends RpcMethodName>(method: M, params?: RpcParams<M>): Promise<RpcResult<M>>;
  /** The event feed (exact types or `prefix.*`), replaying after `after` from the journal when given. */
  subscribe(types?: readonly string[], options?: { after?: number }): Observable<VigilEvent>;
  /**
   * True when `subscribe()` without `after` delivers every event emitted from the moment it returns (an in-process
   * feed, subscribed synchronously): a caller then needs no journal read to be sure of seeing what follows. A feed over
   * the wire is registered only when the server has the request, so a caller replays from the journal instead.
   */
  readonly liveAtOnce?: boolean;
}

/** Opens (or hands back) a link; rejects with the client's error (CLIENT_DISCONNECTED, GATEWAY_UNAUTHORIZED) when it cannot. */
export type OpenLink = () => Promise<VigilLink>;
