// @ts-check
/** The conversation panel: `agent.message`, `agent.ack` and `agent.reply` from the feed, and a box to send a message. */
import { byId, describeFailure, formatTime, h, toast } from './dom-helpers.js';

/** @typedef {import('./dashboard-app.js').Client} Client */
/** @typedef {import('./dashboard-app.js').Panel} Panel */
/** @typedef {import('./vigil-client.js').VigilEvent} VigilEvent */
/** @typedef {Extract<VigilEvent, { type: 'agent.message' | 'agent.ack' | 'agent.reply' }>} ChatEvent */

/** The event types the conversation is made of. */
export const CONVERSATION_TYPES = ['agent.message', 'agent.ack', 'agent.reply'];
const KEEP = 300;

/**
 * @param {Client} client
 * @returns {Panel}
 */
export function createConversationPanel(client) {
  const list = byId('conversation');
  const form = /** @type {HTMLFormElement} */ (byId('send-form'));
  const input = /** @type {HTMLInputElement} */ (byId('send-text'));
  /** Seqs shown, so the history and the live feed never show one event twice. @type {Set<number>} */
  const seen = new Set();
  /** Turns still waiting for their reply. @type {Set<string>} */
  const waiting = new Set();

  /** @param {ChatEvent} event */
  const bubble = (event) => {
    const kind = event.type === 'agent.message' ? 'message' : event.type === 'agent.ack' ? 'ack' : 'reply';
    const who = event.type === 'agent.message' ? event.from : 'agent';
    return h(
      'li',
      { class: `chat chat-${kind}`, dataset: { turn: event.turnId, seq: event.seq } },
      h('div', { class: 'chat-meta' }, h('span', null, who), h('time', { datetime: event.at }, formatTime(event.at))),
      h('div', { class: 'chat-text' }, event.text),
    );
  };

  const renderTyping = () => {
    list.querySelector('.chat-typing')?.remove();
    if (waiting.size > 0) list.append(h('li', { class: 'chat chat-typing', 'aria-label': 'the agent is answering' }, h('span'), h('span'), h('span')));
  };

  /** @param {ChatEvent} event */
  const add = (event) => {
    if (seen.has(event.seq)) return;
    seen.add(event.seq);
    const nearBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    list.querySelector('.empty')?.remove();
    list.append(bubble(event));
    if (event.type === 'agent.reply') waiting.delete(event.turnId);
    while (list.children.length > KEEP) list.firstElementChild?.remove();
    renderTyping();
    if (nearBottom) list.scrollTop = list.scrollHeight;
  };

  form.addEventListener('submit', (submit) => {
    submit.preventDefault();
    const text = input.value.trim();
    if (text === '') return;
    input.disabled = true;
    client.agent
      .send({ text })
      .then(({ turnId }) => {
        input.value = '';
        // The reply may already be here if the agent was quick; only wait for one not yet seen.
        if (!list.querySelector(`.chat-reply[data-turn="${CSS.escape(turnId)}"]`)) waiting.add(turnId);
        renderTyping();
        list.scrollTop = list.scrollHeight;
      })
      .catch((err) => toast(`Could not send: ${describeFailure(err)}`, 'error'))
      .finally(() => {
        input.disabled = false;
        input.focus();
      });
  });

  return {
    async refresh() {
      // The journal keeps the newest events only: the conversation shows what it still holds, then everything live.
      const history = await client.events.history({ types: CONVERSATION_TYPES, limit: 200 });
      for (const event of history) add(/** @type {ChatEvent} */ (event));
      if (list.children.length === 0) list.append(h('li', { class: 'empty' }, 'No messages yet. Say hello below.'));
      list.scrollTop = list.scrollHeight;
    },
    onEvent(event) {
      if (event.type === 'agent.message' || event.type === 'agent.ack' || event.type === 'agent.reply') add(event);
    },
  };
}
