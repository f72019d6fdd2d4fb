// @ts-check
/**
 * The conversation panel: the conversation log (`conversation.list`, paging back with `before`) continued live by
 * `agent.message`, `agent.ack`, `agent.reply` and `agent.unanswered`, each unanswered turn marked with its code, and a
 * box to send a message. A reply the model is still writing (`agent.reply_delta`) shows as a draft that grows, until
 * the turn's ending replaces it.
 */
import { byId, describeFailure, formatTime, h, throttle, toast } from './dom-helpers.js';

/** @typedef {import('./dashboard-app.js').Client} Client */
/** @typedef {import('./dashboard-app.js').Panel} Panel */
/** @typedef {import('./vigil-client.js').ConversationEntry} ConversationEntry */
/** @typedef {import('./vigil-client.js').ReplyDeltaEvent} ReplyDeltaEvent */
/**
 * One bubble. Logged ones (from a page of the log) have its `seq`; ones the feed brought first have `arrival`.
 * @typedef {{ key: string, kind: 'message' | 'ack' | 'reply' | 'unanswered' | 'draft', turnId?: string, who: string, text: string,
 *   at: string, seq?: number, code?: string, arrival?: number }} Bubble
 */

const PAGE = 50;
// The page keeps this many bubbles at most; older ones are a click on "Earlier messages" away.
const KEEP = 500;

/** @param {ConversationEntry} entry @returns {Bubble} */
function fromEntry(entry) {
  const kind = entry.role === 'user' ? 'message' : entry.unanswered === undefined ? 'reply' : 'unanswered';
  return {
    key: keyOf(kind, entry.turnId, entry.seq),
    kind,
    ...(entry.turnId === undefined ? {} : { turnId: entry.turnId }),
    who: entry.role === 'user' ? (entry.from ?? 'user') : 'agent',
    text: entry.text,
    at: entry.at,
    seq: entry.seq,
    ...(entry.unanswered === undefined ? {} : { code: entry.unanswered.code }),
  };
}

/**
 * A turn has one user entry and one ending (CONTRACT §7), so its id tells a logged bubble and its live event apart.
 * @param {Bubble['kind']} kind @param {string | undefined} turnId @param {number} seq
 */
function keyOf(kind, turnId, seq) {
  if (turnId === undefined) return `seq:${seq}`;
  return `${kind === 'message' ? 'user' : kind === 'ack' ? 'ack' : 'agent'}:${turnId}`;
}

/**
 * @param {Client} client
 * @returns {Panel & { onReplyDelta: (event: ReplyDeltaEvent) => void }}
 */
export function createConversationPanel(client) {
  const list = byId('conversation');
  const summary = byId('conv-unread');
  const form = /** @type {HTMLFormElement} */ (byId('send-form'));
  const input = /** @type {HTMLInputElement} */ (byId('send-text'));
  /** Bubbles from the log, oldest first. @type {Bubble[]} */
  let logged = [];
  /** Bubbles the feed brought that no page of the log has shown yet, in arrival order. @type {Bubble[]} */
  let live = [];
  /** Acknowledgements are not logged: they are shown beside their message while the page lives. @type {Map<string, Bubble>} */
  const acks = new Map();
  /** Replies being written, by turn: shown after their message until the turn ends. @type {Map<string, Bubble>} */
  const drafts = new Map();
  let arrivals = 0;
  let olderExist = false;
  // After a restore the log may have lost its newest entries (moved to an archive): the next page replaces them all.
  let replaceNext = false;

  /** @param {Bubble} bubble */
  const bubbleEl = (bubble) =>
    h(
      'li',
      {
        class: `chat chat-${bubble.kind === 'draft' ? 'reply chat-draft' : bubble.kind}`,
        dataset: { turn: bubble.turnId, seq: bubble.seq, code: bubble.code },
      },
      h(
        'div',
        { class: 'chat-meta' },
        h('span', null, bubble.who),
        bubble.code === undefined
          ? null
          : h(
              'span',
              { class: 'chat-code', title: 'this turn ended without an answer' },
              `unanswered · ${bubble.code}`,
            ),
        h('time', { datetime: bubble.at }, formatTime(bubble.at)),
      ),
      h('div', { class: 'chat-text' }, bubble.text),
    );

  /** @param {{ keepOffsetFromBottom?: boolean }} [how] */
  const render = (how = {}) => {
    const fromBottom = list.scrollHeight - list.scrollTop;
    const nearBottom = fromBottom - list.clientHeight < 40;
    const bubbles = [...logged, ...live];
    const ended = new Set(bubbles.filter((b) => b.kind !== 'message').map((b) => b.turnId));
    for (const turnId of drafts.keys()) if (ended.has(turnId)) drafts.delete(turnId);
    const open = bubbles.filter((b) => b.kind === 'message' && b.turnId !== undefined && !ended.has(b.turnId));
    const waiting = open.length;
    const unanswered = bubbles.filter((b) => b.kind === 'unanswered').length;
    /** @type {HTMLElement[]} */
    const rows = [];
    if (olderExist && logged.length > 0) {
      rows.push(
        h(
          'li',
          { class: 'chat-more' },
          h(
            'button',
            { type: 'button', class: 'btn btn-small', onclick: () => void loadEarlier() },
            'Earlier messages',
          ),
        ),
      );
    }
    for (const bubble of bubbles) {
      rows.push(bubbleEl(bubble));
      const ack = bubble.kind === 'message' && bubble.turnId !== undefined ? acks.get(bubble.turnId) : undefined;
      if (ack !== undefined) rows.push(bubbleEl(ack));
      const draft = bubble.kind === 'message' && bubble.turnId !== undefined ? drafts.get(bubble.turnId) : undefined;
      if (draft !== undefined) rows.push(bubbleEl(draft));
    }
    // A draft whose message this page does not show (not loaded yet) goes last.
    const shown = new Set(open.map((b) => b.turnId));
    for (const draft of drafts.values()) if (!shown.has(draft.turnId)) rows.push(bubbleEl(draft));
    if (bubbles.length === 0 && drafts.size === 0)
      rows.push(h('li', { class: 'empty' }, 'No messages yet. Say hello below.'));
    // The dots stand for a reply not begun: one being written shows itself.
    if (open.some((b) => !drafts.has(/** @type {string} */ (b.turnId))))
      rows.push(
        h('li', { class: 'chat chat-typing', 'aria-label': 'the agent is answering' }, h('span'), h('span'), h('span')),
      );
    list.replaceChildren(...rows);
    summary.textContent = [waiting > 0 ? `${waiting} waiting` : '', unanswered > 0 ? `${unanswered} unanswered` : '']
      .filter(Boolean)
      .join(' · ');
    if (how.keepOffsetFromBottom) list.scrollTop = list.scrollHeight - fromBottom;
    else if (nearBottom) list.scrollTop = list.scrollHeight;
  };

  const refresh = async () => {
    const asked = arrivals;
    const page = (await client.conversation.list({ limit: PAGE })).map(fromEntry);
    const first = page[0]?.seq;
    if (replaceNext || first === undefined || !logged.some((b) => b.seq === first)) {
      logged = page;
      olderExist = page.length === PAGE;
    } else {
      // The page is the truth from its first entry on; what was paged back before it stays.
      logged = [...logged.filter((b) => (b.seq ?? 0) < first), ...page];
    }
    replaceNext = false;
    // The log is written before its event is sent: whatever the feed brought before the question, the answer holds.
    const keys = new Set(logged.map((b) => b.key));
    live = live.filter((b) => (b.arrival ?? 0) > asked && !keys.has(b.key));
    render();
  };
  const soon = throttle(refresh, 500);

  async function loadEarlier() {
    const oldest = logged[0]?.seq;
    if (oldest === undefined) return;
    try {
      const page = (await client.conversation.list({ before: oldest, limit: PAGE })).map(fromEntry);
      if (logged[0]?.seq !== oldest) return; // replaced meanwhile
      logged = [...page, ...logged];
      olderExist = page.length === PAGE;
      render({ keepOffsetFromBottom: true });
    } catch (err) {
      toast(`Could not load earlier messages: ${describeFailure(err)}`, 'error');
    }
  }

  /** @param {Bubble} bubble */
  const addLive = (bubble) => {
    if (logged.some((b) => b.key === bubble.key) || live.some((b) => b.key === bubble.key)) return;
    arrivals += 1;
    live.push({ ...bubble, arrival: arrivals });
    const excess = logged.length + live.length - KEEP;
    if (excess > 0) {
      logged.splice(0, Math.min(excess, logged.length));
      olderExist = true;
    }
    render();
  };

  form.addEventListener('submit', (submit) => {
    submit.preventDefault();
    const text = input.value.trim();
    if (text === '') return;
    input.disabled = true;
    client.agent
      .send({ text })
      .then(() => {
        input.value = '';
        list.scrollTop = list.scrollHeight;
      })
      .catch((err) => toast(`Could not send: ${describeFailure(err)}`, 'error'))
      .finally(() => {
        input.disabled = false;
        input.focus();
      });
  });

  /** @param {Bubble} draft */
  const growDraft = (draft) => {
    const shownText = [...list.querySelectorAll('li.chat-draft')]
      .find((li) => li instanceof HTMLElement && li.dataset['turn'] === draft.turnId)
      ?.querySelector('.chat-text');
    // In place while the bubble is on the page: a reply arrives in many small pieces.
    if (shownText instanceof HTMLElement) shownText.textContent = draft.text;
    else render();
  };

  return {
    refresh,
    onReplyDelta(event) {
      const ended = [...logged, ...live].some((b) => b.kind !== 'message' && b.turnId === event.turnId);
      if (ended) return; // the ending came first: it has the whole text
      const draft = drafts.get(event.turnId);
      if (draft === undefined) {
        drafts.set(event.turnId, {
          key: `draft:${event.turnId}`,
          kind: 'draft',
          turnId: event.turnId,
          who: 'agent · writing…',
          text: event.text,
          at: event.at,
        });
        render();
      } else {
        draft.text += event.text;
        growDraft(draft);
      }
    },
    onEvent(event, replayed) {
      const { at } = event;
      switch (event.type) {
        case 'agent.ack':
          // Shown beside its message, so even one from the journal's replay lands in the right place (or nowhere).
          acks.set(event.turnId, {
            key: `ack:${event.turnId}`,
            kind: 'ack',
            turnId: event.turnId,
            who: 'agent',
            text: event.text,
            at,
          });
          render();
          break;
        // The journal's replay may hold turns a restore moved out of the log: the log alone says what was said.
        case 'agent.message':
          if (!replayed)
            addLive({
              key: `user:${event.turnId}`,
              kind: 'message',
              turnId: event.turnId,
              who: event.from,
              text: event.text,
              at,
            });
          break;
        case 'agent.reply':
          if (!replayed)
            addLive({
              key: `agent:${event.turnId}`,
              kind: 'reply',
              turnId: event.turnId,
              who: 'agent',
              text: event.text,
              at,
            });
          break;
        case 'agent.unanswered':
          if (!replayed) {
            addLive({
              key: `agent:${event.turnId}`,
              kind: 'unanswered',
              turnId: event.turnId,
              who: 'agent',
              text: event.reason,
              at,
              code: event.code,
            });
          }
          break;
        // A think that failed or was preempted wrote its drafts for nothing: the next one writes its reply anew.
        case 'think.failed':
        case 'agent.preempted':
          if (!replayed && drafts.size > 0) {
            drafts.clear();
            render();
          }
          break;
        case 'checkpoint.restored':
          if (!replayed) {
            replaceNext = true;
            soon();
          }
          break;
        default:
          break;
      }
    },
  };
}
