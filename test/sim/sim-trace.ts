/**
 * A seed's history as text, for the person replaying a failure (`npm run sim -- --seed N --trace`): each incarnation's
 * published events in seq order, the operator's actions and the world's faults with their outcomes, the chat
 * platform's chats and updates when the seed has a channel, and the warnings and errors the runtime logged, all at
 * simulated time.
 */
import type { SimHistory } from './sim-history.js';

const iso = (at: number): string => new Date(at).toISOString();

/** The lines of `history`'s trace; events' payloads are cut to `width` characters. */
export function traceLines(history: SimHistory, width = 200): string[] {
  const lines: string[] = [];
  for (const incarnation of history.incarnations) {
    const death =
      incarnation.death === null ? 'lived to the end' : `died ${iso(incarnation.death.at)} (${incarnation.death.how})`;
    lines.push(
      `== incarnation ${incarnation.number}: booted ${iso(incarnation.bootedAt)}${incarnation.booted ? '' : ' (never finished booting)'}, journal at seq ${incarnation.journalSeqAtBoot}, ${death}`,
    );
    for (const event of incarnation.published) {
      const { seq, type, at, beat, ...payload } = event as { seq: number; type: string; at: string; beat: number };
      lines.push(`${seq} ${at} beat ${beat} ${type} ${JSON.stringify(payload).slice(0, width)}`);
    }
  }
  lines.push('== actions');
  for (const action of history.actions)
    lines.push(`${iso(action.at)} incarnation ${action.incarnation} ${action.action}: ${action.outcome}`);
  if (history.channel !== null) {
    const { world } = history.channel;
    lines.push(`== chat (calls ${JSON.stringify(world.calls)})`);
    for (const [chatId, messages] of Object.entries(world.chats))
      for (const m of messages) {
        const what = [
          m.replyTo === undefined ? '' : `reply to ${m.replyTo}`,
          m.answer === undefined ? '' : `answer ${m.answer} (incarnation ${m.placedBy})`,
          m.deletedAt === undefined ? '' : `deleted ${iso(m.deletedAt)}`,
          m.editRefused === true ? 'an edit refused' : '',
        ].filter((part) => part !== '');
        const texts = m.texts.map((text) => JSON.stringify(text.slice(0, width / 2))).join(' → ');
        lines.push(`chat ${chatId} #${m.messageId} ${iso(m.at)} ${m.kind} from ${m.from} ${what.join(', ')}: ${texts}`);
      }
    for (const u of world.updates)
      lines.push(
        `update ${u.updateId} ${iso(u.at)} ${u.chatId === undefined ? 'service' : `chat ${u.chatId} #${u.messageId}`}, delivered ${u.deliveries} times, confirmed ${u.confirmedAt === undefined ? 'never' : iso(u.confirmedAt)}`,
      );
  }
  lines.push('== log (warn and above)');
  lines.push(...history.log.map((line) => line.slice(0, width * 2)));
  return lines;
}
