/**
 * `send_message`'s core: send a message as a normal turn and wait for its one terminal event (`agent.reply` or
 * `agent.unanswered`), or give back the turn id once `waitMs` has passed or the agent sleeps over its budget.
 */
import type { VigilEvent } from '../../protocol/events.schema.js';
import type { VigilLink } from './vigil-link.js';

/** How a sent message stands when `send_message` answers. */
export type SendOutcome =
  | { kind: 'answered'; turnId: string; text: string }
  | { kind: 'unanswered'; turnId: string; code: string; reason: string }
  | { kind: 'pending'; turnId: string }
  | { kind: 'asleep'; turnId: string; wakeAt: string; budgetState: string };

const TERMINAL = ['agent.reply', 'agent.unanswered'] as const;

/**
 * Sends `text` from `from` and waits up to `waitMs` for the turn's terminal event. `onSent` is told the turn id as soon
 * as `agent.send` answers (the channel then knows not to push its reply), or undefined when the send failed.
 */
export async function sendAndWait(
  link: VigilLink,
  text: string,
  from: string,
  waitMs: number,
  onSent: (turnId: string | undefined) => void = () => {},
): Promise<SendOutcome> {
  // Over the wire the feed starts after the newest journalled event and replays from there, so a reply that comes
  // before the subscription is registered (or before agent.send's own answer) is still delivered. An in-process feed
  // is live from the moment it is subscribed, before agent.send is called: nothing to read first.
  const after = link.liveAtOnce === true ? undefined : await newestSeq(link);
  const terminal = new Map<string, VigilEvent>();
  let wanted: string | undefined;
  let settle: ((event: VigilEvent | undefined) => void) | undefined;
  let fail: ((err: unknown) => void) | undefined;
  const feed = link.subscribe(TERMINAL, after === undefined ? {} : { after }).subscribe({
    next: (event) => {
      const turnId = (event as { turnId?: string }).turnId;
      if (turnId === undefined) return;
      terminal.set(turnId, event);
      if (turnId === wanted) settle?.(event);
    },
    error: (err: unknown) => fail?.(err),
  });
  try {
    // The budget is read beside the send, not before it (sending spends nothing, so it reads the same): in-process one
    // pass through the router less ahead of the send; over the wire still two round trips. It is asked first, so a
    // rate limit that refuses it refuses the send too, and nothing is sent.
    const sent = link.call('agent.send', { text, from }).then(
      (result) => {
        onSent(result.turnId);
        return result;
      },
      (err: unknown) => {
        onSent(undefined);
        throw err;
      },
    );
    const [budget, { turnId }] = await Promise.all([link.call('budget.status'), sent]);
    // A sleeping agent answers only once it wakes (at the daily reset or a top-up): no use waiting for it.
    if (budget.state === 'sleeping' || budget.state === 'exceeded') {
      return { kind: 'asleep', turnId, wakeAt: budget.resetsAt, budgetState: budget.state };
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const event = await new Promise<VigilEvent | undefined>((resolve, reject) => {
      wanted = turnId;
      settle = resolve;
      fail = reject;
      const early = terminal.get(turnId);
      if (early !== undefined) resolve(early);
      timer = setTimeout(() => resolve(undefined), waitMs);
    }).finally(() => clearTimeout(timer));
    if (event === undefined) return { kind: 'pending', turnId };
    if (event.type === 'agent.reply') return { kind: 'answered', turnId, text: event.text };
    if (event.type === 'agent.unanswered')
      return { kind: 'unanswered', turnId, code: event.code, reason: event.reason };
    return { kind: 'pending', turnId };
  } finally {
    feed.unsubscribe();
  }
}

/** The seq of the newest journalled event (0 for none): where a feed over the wire replays from. */
async function newestSeq(link: VigilLink): Promise<number> {
  const [newest] = await link.call('events.history', { limit: 1 });
  return newest?.seq ?? 0;
}
