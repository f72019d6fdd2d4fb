// @ts-check
/** The tools panel: the MCP tools (up, down or needs_auth, which need approval), the servers waiting for a sign-in (with a "Sign in" link) or down (why, and when they are tried again), and the calls waiting for an operator, each with approve and deny (and a reason). */
import { byId, describeFailure, formatRelative, h, throttle, toast } from './dom-helpers.js';

/** @typedef {import('./dashboard-app.js').Client} Client */
/** @typedef {import('./dashboard-app.js').Panel} Panel */
/** @typedef {import('./vigil-client.js').RpcResult<'tools.pending'>[number]} PendingCall */
/** @typedef {import('./vigil-client.js').RpcResult<'tools.list'>[number]} ToolsListEntry */
/** @typedef {Extract<ToolsListEntry, {name: string}>} ToolView */
/** @typedef {Extract<ToolsListEntry, {state: 'needs_auth', authorizationUrl?: string}>} SignInView */
/** @typedef {Extract<ToolsListEntry, {nextRetryAt: string}>} ServerDownView */

// Events after which the lists may have changed.
const TOOL_EVENTS = new Set([
  'tool.approval_requested',
  'tool.approval_decided',
  'mcp.server_up',
  'mcp.server_down',
  'mcp.tools_changed',
  'mcp.auth_required',
  'mcp.auth_completed',
  'mcp.auth_failed',
  'checkpoint.restored',
]);

/**
 * @param {Client} client
 * @returns {Panel}
 */
export function createToolsPanel(client) {
  const pendingList = byId('tools-pending');
  const toolList = byId('tools');
  const count = byId('tools-count');
  /** Rows by callId, kept across refreshes so a reason being typed is not lost. @type {Map<string, HTMLLIElement>} */
  const rows = new Map();

  /** @param {PendingCall} call */
  const pendingRow = (call) => {
    const reason = h('input', {
      class: 'tool-reason',
      placeholder: 'reason (optional, for deny)',
      maxlength: 2000,
      'aria-label': `reason for denying ${call.callId}`,
    });
    /** @param {boolean} approve */
    const decide = (approve) => {
      for (const button of row.querySelectorAll('button')) button.disabled = true;
      const text = reason.value.trim();
      const decision = approve
        ? client.tools.approve({ callId: call.callId })
        : client.tools.deny({ callId: call.callId, ...(text === '' ? {} : { reason: text }) });
      decision
        .then((done) => {
          toast(`${done.approved ? 'Approved' : 'Denied'} ${done.name}`, 'ok');
          return refresh();
        })
        .catch((err) => {
          for (const button of row.querySelectorAll('button')) button.disabled = false;
          toast(`Could not ${approve ? 'approve' : 'deny'} ${call.name}: ${describeFailure(err)}`, 'error');
          return refresh();
        });
    };
    const row = h(
      'li',
      { class: 'tool-call', dataset: { callId: call.callId, turn: call.turnId } },
      h(
        'div',
        { class: 'tool-call-line' },
        h('span', { class: 'tool-name mono', title: call.callId }, call.name),
        h('span', { class: 'muted small', title: call.requestedAt }, formatRelative(call.requestedAt)),
      ),
      h('pre', { class: 'tool-args mono' }, JSON.stringify(call.args ?? null, null, 1)),
      h(
        'div',
        { class: 'tool-call-actions', 'data-needs-scope': 'operate' },
        reason,
        h(
          'button',
          { type: 'button', class: 'btn btn-small btn-primary tool-approve', onclick: () => decide(true) },
          'Approve',
        ),
        h(
          'button',
          { type: 'button', class: 'btn btn-small btn-danger tool-deny', onclick: () => decide(false) },
          'Deny',
        ),
      ),
    );
    return row;
  };

  /** @param {ToolView} tool */
  const toolRow = (tool) =>
    h(
      'li',
      { class: 'tool', dataset: { name: tool.name, available: tool.available, state: tool.state } },
      h('span', {
        class: 'tool-dot',
        title: tool.state === 'needs_auth' ? 'server needs a sign-in' : tool.available ? 'server up' : 'server down',
      }),
      h('span', { class: 'tool-name mono', title: tool.description }, tool.name),
      tool.requireApproval ? h('span', { class: 'pill pill-soft' }, 'approval') : null,
    );

  /**
   * A server waiting for the operator to sign in: its name, its state and, for an operate session (the only one
   * `tools.list` gives the URL to), the link (it opens the authorization server). @param {SignInView} entry
   */
  const signInRow = (entry) =>
    h(
      'li',
      { class: 'tool tool-sign-in', dataset: { server: entry.server, state: entry.state } },
      h('span', { class: 'tool-dot', title: 'server needs a sign-in' }),
      h('span', { class: 'tool-name mono' }, entry.server),
      h('span', { class: 'pill pill-soft' }, 'needs sign-in'),
      entry.authorizationUrl === undefined
        ? h('span', { class: 'muted small' }, 'an operator signs in')
        : h(
            'a',
            {
              class: 'btn btn-small btn-primary tool-sign-in-link',
              // Only a web address becomes a link (the server's metadata names it: never a javascript: URL).
              href: /^https?:\/\//i.test(entry.authorizationUrl) ? entry.authorizationUrl : undefined,
              target: '_blank',
              rel: 'noopener noreferrer',
              title: `valid until ${entry.expiresAt ?? ''}`,
            },
            'Sign in',
          ),
    );

  /**
   * A server that cannot be reached: its name, why its last attempt failed (what `mcp.server_down` says, never the
   * server's words) and when it is tried again. @param {ServerDownView} entry
   */
  const downRow = (entry) =>
    h(
      'li',
      { class: 'tool tool-down', dataset: { server: entry.server, state: entry.state } },
      h('span', { class: 'tool-dot', title: 'server down' }),
      h('span', { class: 'tool-name mono', title: entry.error }, entry.server),
      h('span', { class: 'pill pill-soft' }, 'unreachable'),
      h(
        'span',
        { class: 'muted small tool-down-reason', title: `next attempt at ${entry.nextRetryAt}` },
        // A time past: the attempt it named is under way (the server stays down until one succeeds).
        `${entry.error}; ${Date.parse(entry.nextRetryAt) > Date.now() ? `next attempt ${formatRelative(entry.nextRetryAt)}` : 'retrying now'}`,
      ),
    );

  /** @param {ToolsListEntry} entry */
  const entryRow = (entry) =>
    'name' in entry ? toolRow(entry) : entry.state === 'down' ? downRow(entry) : signInRow(entry);

  const refresh = async () => {
    const [tools, pending] = await Promise.all([client.tools.list(), client.tools.pending()]);
    const toolCount = tools.filter((entry) => 'name' in entry).length;
    count.textContent = `${pending.length} waiting · ${toolCount} tool${toolCount === 1 ? '' : 's'}`;
    const wanted = new Set(pending.map((call) => call.callId));
    for (const [callId, row] of rows) {
      if (wanted.has(callId)) continue;
      row.remove();
      rows.delete(callId);
    }
    pendingList.querySelector('.empty')?.remove();
    for (const call of pending) {
      if (rows.has(call.callId)) continue;
      const row = pendingRow(call);
      rows.set(call.callId, row);
      pendingList.append(row);
    }
    if (pending.length === 0) pendingList.append(h('li', { class: 'empty' }, 'No call waits for approval.'));
    toolList.replaceChildren(
      ...(tools.length === 0
        ? [h('li', { class: 'empty' }, 'No MCP tools (see VIGIL_MCP_CONFIG).')]
        : tools.map(entryRow)),
    );
  };
  const soon = throttle(refresh, 300);

  return {
    refresh,
    onEvent(event) {
      if (TOOL_EVENTS.has(event.type)) soon();
    },
  };
}
