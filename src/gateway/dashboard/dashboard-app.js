// @ts-check
/** The dashboard's entry: connects the typed client by the session cookie, wires every panel to the live feed and to polling. */
import { createAffectPanel } from './affect.panel.js';
import { createBudgetPanel } from './budget.panel.js';
import { createChannelsPanel } from './channels.panel.js';
import { createCheckpointsPanel } from './checkpoints.panel.js';
import { createConversationPanel } from './conversation.panel.js';
import { byId, describeFailure, runDetached, toast } from './dom-helpers.js';
import { createEventsPanel } from './events.panel.js';
import { createGoalsPanel } from './goals.panel.js';
import { createHeartbeatPanel } from './heartbeat.panel.js';
import { createMemoryPanel } from './memory.panel.js';
import { createSchedulesPanel } from './schedules.panel.js';
import { createTasksPanel } from './tasks.panel.js';
import { createToolsPanel } from './tools.panel.js';
import { createLongTermMemoryPanel } from './long-term-memory.panel.js';
import { openSession, storedSession, takeSessionFromAddress } from './session-token.js';
import { createThinksPanel } from './thinks.panel.js';
import { createWebhooksPanel } from './webhooks.panel.js';
import { connect } from './vigil-client.js';

/** The connected client: the typed client of src/client, bundled for the browser (src/client/browser.ts). */
/** @typedef {import('./vigil-client.js').VigilClient} Client */
/** @typedef {import('./vigil-client.js').VigilEvent} VigilEvent */
/** What one panel knows that another shows (the budget's reset time is a dormant agent's wake time). */
/** @typedef {{ budget: import('./vigil-client.js').RpcResult<'budget.status'> | null }} Shared */
/** A panel: `refresh` reloads it over RPC; `onEvent` sees every event: the journal's replay first (`replayed`), then the live feed. */
/** @typedef {{ refresh: () => Promise<void>, onEvent?: (event: VigilEvent, replayed: boolean) => void }} Panel */

// How often each panel is polled (ms), on top of the refreshes events trigger. Modest: the gateway rate-limits clients.
const POLL = {
  heartbeat: 1000,
  affect: 1000,
  budget: 5000,
  goals: 5000,
  memory: 5000,
  checkpoints: 15_000,
  thinks: 15_000,
  tasks: 5000,
  schedules: 10_000,
  webhooks: 5000,
  channels: 10_000,
};
// A page waits less than a program for an answer, and retries a lost connection at least every five seconds.
const CONNECTION = { requestTimeoutMs: 15_000, reconnect: { initialDelayMs: 100, maxDelayMs: 5000 } };

/** @param {string} reason */
function askForToken(reason) {
  const gate = byId('token-gate');
  byId('token-reason').textContent = reason;
  gate.hidden = false;
  const form = /** @type {HTMLFormElement} */ (byId('token-form'));
  const input = /** @type {HTMLInputElement} */ (byId('token-input'));
  input.focus();
  form.addEventListener(
    'submit',
    (submit) => {
      submit.preventDefault();
      const token = input.value.trim();
      input.value = '';
      gate.hidden = true;
      runDetached(
        openSession(token).then((opened) =>
          opened ? start() : askForToken('The gateway refused that token. Paste the token to try again.'),
        ),
        'opening a session',
      );
    },
    { once: true },
  );
}

/** @param {import('./vigil-client.js').ClientState} state */
function showConnection(state) {
  const labels = { connecting: 'connecting…', open: 'live', reconnecting: 'reconnecting…', closed: 'disconnected' };
  byId('connection').dataset['state'] = state;
  byId('connection-label').textContent = labels[state];
}

async function start() {
  /** @type {Client} */
  let client;
  try {
    // The page's own origin: connect() turns http(s) into ws(s) and adds /rpc. No token: the upgrade carries the
    // session cookie (HttpOnly: this script never sees it) and offers the session's secret, which only this origin
    // holds; the gateway honours the pair from this origin only.
    client = await connect({ url: window.location.origin, session: storedSession(), ...CONNECTION });
  } catch (err) {
    // The session ended (its token revoked or expired, or the daemon's token changed): a new token opens a new one.
    showConnection('closed');
    askForToken(
      `${describeFailure(err)} Run \`npx vigil dashboard\` where the daemon runs for a sign-in link, or paste the token to open a new session.`,
    );
    return;
  }

  // What this token may do: controls beyond its scope are hidden (dashboard.css, [data-needs-scope]); the gateway
  // refuses them anyway. Until the answer, every control that needs more than read stays hidden.
  const whoami = await client.auth.whoami();
  document.documentElement.dataset['scope'] = whoami.scope;

  /** @type {Shared} */
  const shared = { budget: null };
  const events = createEventsPanel();
  const panels = {
    heartbeat: createHeartbeatPanel(client, shared),
    budget: createBudgetPanel(client, shared),
    affect: createAffectPanel(client),
    goals: createGoalsPanel(client),
    memory: createMemoryPanel(client),
    longTermMemory: createLongTermMemoryPanel(client),
    checkpoints: createCheckpointsPanel(client, () =>
      runDetached(refreshAll(), 'reloading the panels after a restore'),
    ),
    conversation: createConversationPanel(client),
    tools: createToolsPanel(client),
    tasks: createTasksPanel(client),
    schedules: createSchedulesPanel(client),
    thinks: createThinksPanel(client),
    webhooks: createWebhooksPanel(client, whoami.scope),
    // Hidden until channels.list names one; pairing codes only for an operate session.
    channels: createChannelsPanel(client, whoami.scope),
    events,
  };
  /** @param {VigilEvent} event @param {boolean} [replayed] */
  const dispatch = (event, replayed = false) => {
    for (const panel of Object.values(panels)) panel.onEvent?.(event, replayed);
  };
  const refreshAll = () =>
    Promise.all(
      Object.entries(panels).map(([name, panel]) =>
        panel.refresh().catch((err) => console.warn(`refreshing ${name} failed: ${describeFailure(err)}`)),
      ),
    );

  // The newest events seed the feed; the subscription then continues right after them (replayed if need be). They
  // are read before the panels load, so whatever happens in between is in both, never in neither.
  // The schema's output type is wider than the VigilEvent union (zod infers the envelope loosely): same wire shape.
  const recent = /** @type {VigilEvent[]} */ (/** @type {unknown} */ (await client.events.history({ limit: 200 })));
  await refreshAll();
  for (const event of recent) dispatch(event, true);
  client.subscribe(undefined, { after: recent.at(-1)?.seq }).subscribe({
    next: dispatch,
    // The feed ends only with the connection itself (no more retries), which the top bar already shows.
    error: (err) => console.warn(`the event feed ended: ${describeFailure(err)}`),
  });
  // A reply's text as the model writes it: live only, so on a feed of its own that names it and replays nothing.
  client.subscribeFeed(['agent.reply_delta']).subscribe({
    next: (event) => {
      if (event.type === 'agent.reply_delta') panels.conversation.onReplyDelta(event);
    },
    error: (err) => console.warn(`the reply stream ended: ${describeFailure(err)}`),
  });
  client.dropped$.subscribe((notice) => events.dropped(notice));
  // After a reconnection the feed resumes by itself; the polled views are reloaded at once.
  let wasOpen = true;
  client.state$.subscribe((state) => {
    showConnection(state);
    if (state === 'open' && !wasOpen) runDetached(refreshAll(), 'reloading the panels after a reconnection');
    wasOpen = state === 'open';
    if (state === 'reconnecting') toast('Connection lost; reconnecting…', 'error');
  });

  for (const [name, ms] of Object.entries(POLL)) {
    const panel = panels[/** @type {keyof typeof POLL} */ (name)];
    window.setInterval(() => {
      // A hidden tab costs the daemon nothing; it catches up when shown (the feed keeps the live parts current).
      if (document.hidden || client.state$.value !== 'open') return;
      panel.refresh().catch((err) => console.warn(`polling ${name} failed: ${describeFailure(err)}`));
    }, ms);
  }
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && client.state$.value === 'open') runDetached(refreshAll(), 'reloading the panels');
  });
  document.body.dataset['ready'] = 'true';
}

takeSessionFromAddress();
runDetached(start(), 'starting the dashboard');
