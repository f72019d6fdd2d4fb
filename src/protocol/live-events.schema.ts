/**
 * Live-only events (CONTRACT §13): facts of the moment, such as a reply's text as the model writes it. They carry no
 * `seq`, are never journaled (so never in `events.history` or a replay), and reach only subscribers that name their
 * type exactly: a prefix such as `agent.*` does not match them, so a feed written before they existed never sees one.
 */
import { z } from 'zod';

/** `agent.reply_delta`: the next piece of a reply's text while it streams; the final `agent.reply` has the whole text. */
export const ReplyDeltaEventSchema = z.object({
  type: z.literal('agent.reply_delta'),
  at: z.string().datetime({ offset: true }),
  beat: z.number().int().nonnegative(),
  turnId: z.string(),
  text: z.string(),
});
export type ReplyDeltaEvent = z.infer<typeof ReplyDeltaEventSchema>;

/** Every live-only event. */
export const LiveEventSchema = z.discriminatedUnion('type', [ReplyDeltaEventSchema]);
export type LiveEvent = z.infer<typeof LiveEventSchema>;
export type LiveEventType = LiveEvent['type'];

/**
 * The live-only event types, which a subscription receives only when it names them exactly; each with what it means
 * (docs/reference/events.md quotes these comments).
 */
export const LIVE_EVENT_TYPES: readonly LiveEventType[] = [
  /**
   * The next piece of a reply's text while the model streams it (either thinker): the pieces of one reply arrive in
   * order before its `agent.reply`, whose text is their concatenation. A reply cut short never becomes an
   * `agent.reply`.
   */
  'agent.reply_delta',
];

/** The live-only types `patterns` names exactly (a prefix or `*` names none of them). */
export function namedLiveTypes(patterns: readonly string[] | undefined): ReadonlySet<LiveEventType> {
  return new Set(LIVE_EVENT_TYPES.filter((type) => patterns?.includes(type) === true));
}
