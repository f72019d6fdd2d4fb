/**
 * The channel of `vigil mcp`: follows the daemon's event journal (`events.subscribe {types, after}`) from the last
 * seq it pushed and sends each of the agent's own messages to the host as `notifications/claude/channel`, once each
 * and in order, the cursor written only after the notification was written. So what happened while no host was
 * connected arrives when one connects, and a restart of `vigil mcp` pushes nothing twice. A daemon that is down, or
 * goes away, is looked for again every `retryMs`.
 *
 * States: idle (until `start`, the host's `notifications/initialized`) → following (a feed is open) ⇄ waiting (the
 * daemon is unreachable, a timer runs) → stopped (the host left; terminal).
 */
import type { Observable, Subscription } from 'rxjs';
import type { DroppedNotification } from '../../protocol/event-feed.schema.js';
import type { VigilEvent } from '../../protocol/events.schema.js';
import { CHANNEL_FEED_TYPES, channelMessage, type ChannelMessage } from './channel-messages.js';
import type { ChannelCursor } from './channel-cursor.js';
import type { SessionTurns } from './session-turns.js';
import type { VigilLink } from './vigil-link.js';

/** A link the channel follows: the typed client, whose `events.dropped` notices say the feed lost events. */
export type ChannelLink = VigilLink & { readonly dropped$?: Observable<DroppedNotification> };

export interface ChannelPushOptions {
  /** The link (the same one the tools use); rejects while the daemon cannot be reached. */
  open: () => Promise<ChannelLink>;
  /** Writes one notification to the host; settles once written. */
  notify: (message: ChannelMessage) => Promise<void>;
  /** The durable cursor for token `tokenName`, or undefined without a data dir (the channel then starts from now). */
  cursorFor: (tokenName: string) => ChannelCursor | undefined;
  /** The turns this session's `send_message` asked for: their replies are not pushed. */
  sessionTurns: SessionTurns;
  /** How long to wait before looking for the daemon again (default 5 s). */
  retryMs?: number;
  /** Told why the feed stopped (a lost link, a cursor that could not be written) before it is tried again. */
  onError?: (err: unknown) => void;
}

/** The channel; `start` once the host is initialised, `stop` when it leaves. */
export interface ChannelPush {
  start(): void;
  stop(): Promise<void>;
}

const DEFAULT_RETRY_MS = 5000;
/** How long `stop` waits for a push under way (a write to a host's stdout). */
const STOP_WAIT_MS = 2000;
/** How many turns' senders are remembered (a reply comes soon after its message). */
const MAX_ORIGINS = 1000;

export function createChannelPush(options: ChannelPushOptions): ChannelPush {
  let state: 'idle' | 'following' | 'waiting' | 'stopped' = 'idle';
  // The seq of the last event handled (pushed or passed over); undefined until the first feed has its start.
  let after: number | undefined;
  let cursor: ChannelCursor | undefined | null = null;
  const origins = new Map<string, string>();
  let timer: NodeJS.Timeout | undefined;
  let endFeed: (() => void) | undefined;
  let running: Promise<void> = Promise.resolve();
  // A function, not a comparison in place: the state changes across the awaits below, where a test would be narrowed.
  const stopped = (): boolean => state === 'stopped';

  const handle = async (event: VigilEvent): Promise<void> => {
    if (stopped() || (after !== undefined && event.seq <= after)) return;
    if (event.type === 'agent.message') {
      origins.set(event.turnId, event.from);
      if (origins.size > MAX_ORIGINS) origins.delete(origins.keys().next().value!);
    }
    const turnId = 'turnId' in event && event.type.startsWith('agent.') ? event.turnId : undefined;
    const from = turnId === undefined ? undefined : origins.get(turnId);
    // The turn may be this session's, whose send_message has not had its turn id back from agent.send yet.
    if (turnId !== undefined) await options.sessionTurns.idle();
    const message = turnId !== undefined && options.sessionTurns.has(turnId) ? undefined : channelMessage(event, from);
    if (message === undefined || stopped()) {
      after = event.seq;
      return;
    }
    await options.notify(message);
    // Pushed: never again from this process, even if the cursor cannot be written (then a restart may repeat it).
    after = event.seq;
    await cursor?.write(event.seq);
  };

  /** Follows one link until it fails (rejects) or the channel stops (resolves). */
  const follow = async (): Promise<void> => {
    const link = await options.open();
    if (cursor === null) cursor = options.cursorFor((await link.call('auth.whoami')).name);
    after ??= await cursor?.read();
    if (after === undefined) {
      // No cursor kept: start from now, and keep that, so what follows is caught up after a restart.
      const [newest] = await link.call('events.history', { limit: 1 });
      after = newest?.seq ?? 0;
      await cursor?.write(after);
    }
    if (stopped()) return;
    await new Promise<void>((resolve, reject) => {
      let queue = Promise.resolve();
      const subscriptions: Subscription[] = [];
      let ended = false;
      const end = (err?: unknown): void => {
        if (ended) return;
        ended = true;
        for (const subscription of subscriptions) subscription.unsubscribe();
        // Whatever is being pushed finishes first, so the next feed starts after its seq.
        void queue.then(() => (err === undefined ? resolve() : reject(asError(err))));
      };
      endFeed = () => end();
      subscriptions.push(
        link.subscribe(CHANNEL_FEED_TYPES, { after: after! }).subscribe({
          next: (event) => {
            queue = queue.then(() => (ended ? undefined : handle(event))).catch((err: unknown) => end(err));
          },
          error: (err: unknown) => end(err),
          complete: () => end(new Error('the event feed ended')),
        }),
      );
      // Events the gateway skipped for a slow reader are read again from the cursor by a new feed. The notice may be
      // another feed's of the same link (send_message's): a new feed from the cursor is harmless then.
      const dropped = link.dropped$?.subscribe(() => end(new Error('the event feed fell behind')));
      if (dropped !== undefined) subscriptions.push(dropped);
    });
  };

  const run = (): void => {
    if (stopped()) return;
    state = 'following';
    running = follow().then(
      () => undefined,
      (err: unknown) => {
        if (stopped()) return;
        options.onError?.(err);
        state = 'waiting';
        timer = setTimeout(run, options.retryMs ?? DEFAULT_RETRY_MS);
        timer.unref();
      },
    );
  };

  return {
    start: () => {
      if (state === 'idle') run();
    },
    stop: async () => {
      state = 'stopped';
      clearTimeout(timer);
      endFeed?.();
      // The push under way finishes and its cursor is written, unless a host that stopped reading holds it forever.
      let bound: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        bound = setTimeout(resolve, STOP_WAIT_MS);
        bound.unref();
      });
      await Promise.race([running, late]);
      clearTimeout(bound);
    },
  };
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
