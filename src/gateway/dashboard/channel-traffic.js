// @ts-check
/** The channels panel's recent traffic: the newest `channel.*` events, by seq, each said as one readable line. */
import { formatDateTime, formatTime, h } from './dom-helpers.js';

/** @typedef {import('./vigil-client.js').VigilEvent} VigilEvent */
/** @typedef {Extract<VigilEvent, { type: `channel.${string}` }>} ChannelEvent */

/** The events the traffic list shows: messages in and out, refusals, pairings and the link's health. */
export const TRAFFIC_TYPES = [
  'channel.received',
  'channel.replied',
  'channel.refused',
  'channel.send_failed',
  'channel.failing',
  'channel.recovered',
  'channel.connected',
  'channel.paired',
];
/** How many lines the list keeps. */
export const TRAFFIC_LINES = 20;

const SHOWN = new Set(TRAFFIC_TYPES);
const REFUSALS = {
  pairing: 'sent a pairing code',
  not_allowed: 'not allowed (allowlist)',
  direct_messages_disabled: 'direct messages are disabled',
  unauthenticated: 'the sender did not pass authentication (a forged From)',
};

/** @param {VigilEvent} event @returns {event is ChannelEvent} Whether the traffic list shows `event`. */
export const isTraffic = (event) => SHOWN.has(event.type);

/**
 * What happened, for the operator: a direction (`in`, `out`, `bad`, `link`) and a sentence.
 * @param {ChannelEvent} event
 * @returns {{ kind: 'in' | 'out' | 'bad' | 'link', chat: string | null, text: string, title?: string }}
 */
function describe(event) {
  switch (event.type) {
    case 'channel.received':
      return {
        kind: 'in',
        chat: event.chatId,
        text: `received message ${event.messageId} from ${event.senderId}`,
        title: `turn ${event.turnId}`,
      };
    case 'channel.replied': {
      const parts = event.messageIds.length;
      return {
        kind: 'out',
        chat: event.chatId,
        text: parts === 1 ? `replied with message ${event.messageIds[0]}` : `replied in ${parts} messages`,
        title: `turn ${event.turnId}: message${parts === 1 ? '' : 's'} ${event.messageIds.join(', ')}`,
      };
    }
    case 'channel.refused':
      return { kind: 'bad', chat: event.chatId, text: `refused ${event.senderId}: ${REFUSALS[event.reason]}` };
    case 'channel.send_failed':
      return {
        kind: 'bad',
        chat: event.chatId,
        text: `reply not delivered: ${event.error}`,
        title: `turn ${event.turnId}`,
      };
    case 'channel.failing':
      return { kind: 'bad', chat: null, text: `failing: ${event.error}` };
    case 'channel.recovered':
      return { kind: 'link', chat: null, text: 'recovered' };
    case 'channel.connected':
      return { kind: 'link', chat: null, text: `connected as ${event.account}` };
    case 'channel.paired':
      return { kind: 'link', chat: null, text: `paired ${event.senderId}: may talk from now on` };
  }
}

const ARROWS = { in: '←', out: '→', bad: '✕', link: '•' };

/**
 * The list's contents: keeps the newest events by seq (the journal's replay and the live feed may both bring one).
 * @param {HTMLElement} list The `<ol>` it renders into.
 */
export function createTraffic(list) {
  /** @type {Map<number, ChannelEvent>} */
  const bySeq = new Map();

  const render = () => {
    const newest = [...bySeq.values()].sort((a, b) => b.seq - a.seq);
    list.replaceChildren(
      ...(newest.length === 0
        ? [h('li', { class: 'empty' }, 'No traffic yet.')]
        : newest.map((event) => {
            const { kind, chat, text, title } = describe(event);
            return h(
              'li',
              { class: `traffic traffic-${kind}`, dataset: { seq: event.seq, type: event.type } },
              h('time', { datetime: event.at, title: formatDateTime(event.at) }, formatTime(event.at)),
              h('span', { class: 'traffic-channel' }, event.channel),
              h('span', { class: 'traffic-chat', title: chat === null ? '' : `chat ${chat}` }, chat ?? '—'),
              h('span', { class: 'traffic-arrow', 'aria-hidden': 'true' }, ARROWS[kind]),
              h('span', { class: 'traffic-text', title: title ?? text }, text),
            );
          })),
    );
  };

  return {
    /** Takes events in any order; re-renders once. @param {readonly ChannelEvent[]} events */
    add(events) {
      if (events.length === 0) return;
      for (const event of events) bySeq.set(event.seq, event);
      for (const seq of [...bySeq.keys()].sort((a, b) => a - b).slice(0, Math.max(0, bySeq.size - TRAFFIC_LINES)))
        bySeq.delete(seq);
      render();
    },
    render,
  };
}
