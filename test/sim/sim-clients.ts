/**
 * Simulated event-feed clients: each is a chain of subscriptions (subscribe, disconnect, resume with `after` = the
 * last seq it saw), each subscription the gateway's own `EventSubscriber` wired as the WebSocket gateway wires it
 * (`live$`, `history`, `after`, `liveAfter` = the newest seq the gateway has seen), writing its JSON-RPC frames into a
 * sink that records them.
 */
import { EventSubscriber } from '../../src/gateway/event-subscriber.js';
import { jsonRpcFeedFormat } from '../../src/gateway/feed-format.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import type { Runtime } from '../../src/runtime/runtime.js';

/** What a subscription needs of the incarnation it is connected to. */
export interface FeedSource {
  readonly number: number;
  readonly runtime: Runtime;
  /** Every event its bus published, in publish order. */
  readonly published: readonly VigilEvent[];
  /** The newest seq the gateway would know: the journal's at boot, then every published one. */
  lastSeq(): number;
}

/** Why a subscription ended. */
export type SessionEnd = 'disconnect' | 'crash' | 'end' | 'too slow';

/** One subscription of a client, from subscribe to its end. */
export interface SimSession {
  chain: number;
  incarnation: number;
  types: readonly string[] | undefined;
  /** Replay after this seq first; undefined: live only (from `liveAfter`). */
  after: number | undefined;
  liveAfter: number;
  openedAt: number;
  /** How far the incarnation's published list was when the session began and when it ended. */
  publishedFrom: number;
  publishedTo: number | undefined;
  /** The newest seq published on the incarnation's bus when the session ended. */
  horizon: number | undefined;
  endedBy: SessionEnd | undefined;
  /** Whether it had finished replaying the journal and gone live when it ended. */
  wentLive: boolean;
  /** Every event received, in order. */
  events: VigilEvent[];
  dropNotices: number;
}

/** One client: its subscriptions, oldest first. */
export interface SimChain {
  id: number;
  types: readonly string[] | undefined;
  sessions: SimSession[];
}

const FEED_LIMITS = { bufferSize: 1000, highWaterBytes: 1 << 20, maxDropped: 10_000 } as const;

/** Every client of the run. */
export class SimClients {
  readonly chains: SimChain[] = [];
  private readonly open = new Map<number, { session: SimSession; subscriber: EventSubscriber; source: FeedSource }>();

  /** A new client subscribing to `types`: live only, or replaying the whole journal (`after: 0`). */
  subscribe(source: FeedSource, types: readonly string[] | undefined, start: 'live' | 'replay', now: number): SimChain {
    const chain: SimChain = { id: this.chains.length + 1, types, sessions: [] };
    this.chains.push(chain);
    this.connect(chain, source, start === 'live' ? undefined : 0, now);
    return chain;
  }

  /** Client `chain` comes back, resuming after the last seq it saw (or where it started, if it saw none). */
  resume(chain: SimChain, source: FeedSource, now: number): void {
    if (this.open.has(chain.id)) return;
    this.connect(chain, source, lastSeen(chain), now);
  }

  /** Client `chain` goes away. */
  disconnect(chain: SimChain, why: SessionEnd): void {
    const open = this.open.get(chain.id);
    if (open === undefined) return;
    this.open.delete(chain.id);
    // The subscriber holds live events in `hold` while it replays, and drops the hold once live (read, not changed).
    open.session.wentLive = (open.subscriber as unknown as { hold: unknown }).hold === null;
    open.subscriber.close();
    this.end(open.session, open.source, why);
  }

  /** Every client connected to incarnation `incarnation` loses its connection. */
  disconnectAll(incarnation: number, why: SessionEnd): void {
    for (const [id, open] of [...this.open])
      if (open.source.number === incarnation) this.disconnect(this.chains[id - 1]!, why);
  }

  /** True while client `chain` is connected. */
  isConnected(chain: SimChain): boolean {
    return this.open.has(chain.id);
  }

  private connect(chain: SimChain, source: FeedSource, after: number | undefined, now: number): void {
    const liveAfter = after ?? source.lastSeq();
    const session: SimSession = {
      chain: chain.id,
      incarnation: source.number,
      types: chain.types,
      after,
      liveAfter,
      openedAt: now,
      publishedFrom: source.published.length,
      publishedTo: undefined,
      horizon: undefined,
      endedBy: undefined,
      wentLive: false,
      events: [],
      dropNotices: 0,
    };
    chain.sessions.push(session);
    const subscriber: EventSubscriber = new EventSubscriber({
      live$: source.runtime.events$,
      history: (query) => source.runtime.history(query),
      types: chain.types,
      after,
      liveAfter,
      ...FEED_LIMITS,
      format: jsonRpcFeedFormat(`sub-${chain.id}-${chain.sessions.length}`),
      sink: {
        bufferedAmount: () => 0,
        write: (frame) => {
          const message = JSON.parse(frame) as { method: string; params: { event?: VigilEvent } };
          if (message.method === 'events.event') session.events.push(message.params.event!);
          else session.dropNotices += 1;
        },
        disconnect: () => {
          this.open.delete(chain.id);
          session.wentLive = true;
          this.end(session, source, 'too slow');
        },
      },
    });
    this.open.set(chain.id, { session, subscriber, source });
    subscriber.start();
  }

  private end(session: SimSession, source: FeedSource, why: SessionEnd): void {
    if (session.endedBy !== undefined) return;
    session.endedBy = why;
    session.publishedTo = source.published.length;
    session.horizon = Math.max(session.after ?? session.liveAfter, maxSeq(source.published));
  }
}

/** The newest seq client `chain` has seen, or where its last subscription started. */
export function lastSeen(chain: SimChain): number {
  for (let i = chain.sessions.length - 1; i >= 0; i -= 1) {
    const session = chain.sessions[i]!;
    const last = session.events[session.events.length - 1];
    if (last !== undefined) return last.seq;
  }
  const first = chain.sessions[0];
  return first === undefined ? 0 : (first.after ?? first.liveAfter);
}

function maxSeq(events: readonly VigilEvent[]): number {
  let max = 0;
  for (const event of events) if (event.seq > max) max = event.seq;
  return max;
}
