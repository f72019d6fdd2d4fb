// @ts-check
/**
 * The channels panel, shown only when a chat channel is configured: each channel's state, bot account, pending replies
 * and last traffic; for an operate session the strangers waiting with a pairing code, each with Approve; and the
 * recent traffic from the event feed.
 */
import { createTraffic, isTraffic, TRAFFIC_LINES, TRAFFIC_TYPES } from './channel-traffic.js';
import { byId, describeFailure, formatDateTime, formatRelative, h, throttle, toast } from './dom-helpers.js';

/** @typedef {import('./dashboard-app.js').Client} Client */
/** @typedef {import('./dashboard-app.js').Panel} Panel */
/** @typedef {import('./vigil-client.js').VigilEvent} VigilEvent */
/** @typedef {import('./vigil-client.js').RpcResult<'channels.list'>[number]} ChannelView */
/** @typedef {import('./vigil-client.js').RpcResult<'channels.pairings'>[number]} PairingView */

// After these a channel's state, traffic times, pending replies or pairings have changed (channel.refused with
// reason "pairing" is a new code waiting).
const CHANNEL_EVENTS = new Set(TRAFFIC_TYPES);

/** @param {string | undefined} at @returns {Node | string} A relative time with the full one on hover, or a dash. */
const when = (at) => (at === undefined ? '—' : h('span', { title: formatDateTime(at) }, formatRelative(at)));

/**
 * @param {Client} client
 * @param {'read' | 'talk' | 'operate'} scope The session's scope: codes are asked for only by an operate session
 *   (`channels.pairings` needs it; a narrower one is never shown one).
 * @returns {Panel}
 */
export function createChannelsPanel(client, scope) {
  const card = byId('channels-card');
  const body = byId('channels');
  const count = byId('channels-count');
  const pairingList = byId('channel-pairings');
  const traffic = createTraffic(byId('channel-traffic'));
  const mayPair = scope === 'operate';
  /** Pairing rows by channel, sender and code, kept across refreshes so an Approve in flight stays disabled. */
  /** @type {Map<string, HTMLLIElement>} */
  const rows = new Map();
  let seeded = false;

  /** @param {ChannelView} channel */
  const channelRow = (channel) =>
    h(
      'tr',
      { class: 'channel', dataset: { name: channel.name, state: channel.state } },
      h('td', {}, h('span', { class: `pill channel-state channel-${channel.state}` }, channel.state)),
      h(
        'td',
        { class: 'channel-name' },
        h('strong', {}, channel.name),
        ' ',
        h('span', { class: 'muted small' }, channel.type),
        channel.error === undefined
          ? null
          : h('div', { class: 'channel-error small', title: channel.error }, channel.error),
      ),
      h('td', { class: 'mono channel-account' }, channel.account ?? '—'),
      h('td', { class: 'num channel-pending' }, String(channel.pending)),
      h('td', { class: 'small channel-in' }, when(channel.lastInboundAt)),
      h('td', { class: 'small channel-out' }, when(channel.lastOutboundAt)),
    );

  /** @param {PairingView} pairing */
  const pairingRow = (pairing) => {
    const approve = () => {
      button.disabled = true;
      client.channels
        .approve({ channel: pairing.channel, code: pairing.code })
        .then(() => {
          toast(`Approved ${pairing.name ?? pairing.senderId} on ${pairing.channel}`, 'ok');
          return refresh();
        })
        .catch((err) => {
          button.disabled = false;
          toast(`Could not approve ${pairing.name ?? pairing.senderId}: ${describeFailure(err)}`, 'error');
          return refresh();
        });
    };
    const button = h(
      'button',
      { type: 'button', class: 'btn btn-small btn-primary pairing-approve', onclick: approve },
      'Approve',
    );
    return h(
      'li',
      { class: 'pairing', dataset: { channel: pairing.channel, sender: pairing.senderId } },
      h(
        'div',
        { class: 'pairing-who' },
        h('strong', { class: 'pairing-name' }, pairing.name ?? pairing.senderId),
        h('span', { class: 'muted small pairing-sender' }, `${pairing.channel} · id ${pairing.senderId}`),
      ),
      h('code', { class: 'pairing-code', title: 'the code the bot sent them' }, pairing.code),
      h('span', { class: 'muted small pairing-expires', title: formatDateTime(pairing.expiresAt) }, ''),
      button,
    );
  };

  /** @param {PairingView[]} pairings */
  const showPairings = (pairings) => {
    const wanted = new Map(pairings.map((p) => [`${p.channel}\n${p.senderId}\n${p.code}`, p]));
    for (const [key, row] of rows) {
      if (wanted.has(key)) continue;
      row.remove();
      rows.delete(key);
    }
    pairingList.querySelector('.empty')?.remove();
    for (const [key, pairing] of wanted) {
      let row = rows.get(key);
      if (row === undefined) {
        row = pairingRow(pairing);
        rows.set(key, row);
        pairingList.append(row);
      }
      const expires = row.querySelector('.pairing-expires');
      if (expires !== null) expires.textContent = `expires ${formatRelative(pairing.expiresAt)}`;
    }
    if (pairings.length === 0) pairingList.append(h('li', { class: 'empty' }, 'Nobody waits with a pairing code.'));
  };

  /** The newest traffic from the journal, once: the page's own replay may hold none under a busy heartbeat. */
  const seed = async () => {
    const recent = await client.events.history({ types: TRAFFIC_TYPES, limit: TRAFFIC_LINES });
    // The schema's output type is wider than the VigilEvent union (zod infers the envelope loosely): same wire shape.
    traffic.add(/** @type {VigilEvent[]} */ (/** @type {unknown} */ (recent)).filter(isTraffic));
    traffic.render();
    seeded = true;
  };

  const refresh = async () => {
    const channels = await client.channels.list();
    // No channel configured: no panel (the file is read at start, so a restart with one shows it on reconnection).
    card.hidden = channels.length === 0;
    if (channels.length === 0) return;
    const pairings = mayPair ? await client.channels.pairings({}) : [];
    if (!seeded) await seed();
    const healthy = channels.filter((c) => c.state === 'ok').length;
    const waiting = mayPair ? ` · ${pairings.length} waiting to pair` : '';
    count.textContent = `${healthy} ok · ${channels.length} channel${channels.length === 1 ? '' : 's'}${waiting}`;
    body.replaceChildren(...[...channels].sort((a, b) => (a.name < b.name ? -1 : 1)).map(channelRow));
    if (mayPair) showPairings(pairings);
  };
  const soon = throttle(refresh, 300);

  return {
    refresh,
    onEvent(event) {
      if (!CHANNEL_EVENTS.has(event.type)) return;
      if (isTraffic(event)) traffic.add([event]);
      soon();
    },
  };
}
