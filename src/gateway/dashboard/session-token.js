// @ts-check
/**
 * The dashboard's session: the page never holds the token. A sign-in (a one-time link from `vigil dashboard`, or the
 * token once in `/?token=`) is answered by the gateway with an HttpOnly cookie and a redirect to `/#session=SECRET`;
 * a token pasted into the form is traded the same way here, in a POST header, never in a URL, and forgotten at once.
 *
 * The secret is the half of the session a cookie cannot carry: browsers share cookies between the ports of a host,
 * so another local web server gets the cookie, but web storage is per origin (port included). The page keeps the
 * secret in this origin's localStorage (every tab of the dashboard shares it) and offers it on its WebSocket upgrade.
 */

/** Where the gateway trades a token for a session (dashboard-route.ts, DASHBOARD_SESSION_PATH). */
const SESSION_PATH = '/dashboard/session';
/** Where the secret is kept, in this origin's storage. */
const STORAGE_KEY = 'vigil.session';
/** The fragment key the gateway's sign-in redirect uses (dashboard-route.ts, SESSION_FRAGMENT_KEY). */
const FRAGMENT_KEY = 'session';

/** Storage that may be refused (a browser's strictest privacy settings): then the secret lives as long as the page. */
let inMemory = /** @type {string | undefined} */ (undefined);

/** @param {string} secret */
function keep(secret) {
  inMemory = secret;
  try {
    window.localStorage.setItem(STORAGE_KEY, secret);
  } catch {
    // Kept in memory only.
  }
}

/**
 * Moves a secret the sign-in put in the address into storage, and takes it out of the address (and of this history
 * entry) before anything else reads it. Call first thing.
 */
export function takeSessionFromAddress() {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  const secret = fragment.get(FRAGMENT_KEY);
  if (secret === null) return;
  keep(secret);
  fragment.delete(FRAGMENT_KEY);
  const rest = fragment.toString();
  window.history.replaceState(
    null,
    '',
    `${window.location.pathname}${window.location.search}${rest === '' ? '' : `#${rest}`}`,
  );
}

/** The session's secret this origin keeps, if any. */
export function storedSession() {
  try {
    return window.localStorage.getItem(STORAGE_KEY) ?? inMemory;
  } catch {
    return inMemory;
  }
}

/**
 * Trades `token` for this browser's session (the cookie, and the secret kept here); resolves true once opened, false
 * if the gateway refused the token.
 * @param {string} token
 * @returns {Promise<boolean>}
 */
export async function openSession(token) {
  const answer = await fetch(SESSION_PATH, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    credentials: 'same-origin',
    cache: 'no-store',
  });
  if (answer.status === 401) return false;
  if (answer.status !== 200) throw new Error(`the gateway answered ${answer.status} to the session exchange`);
  /** @type {unknown} */
  const body = await answer.json();
  const secret = typeof body === 'object' && body !== null && 'secret' in body ? body.secret : undefined;
  if (typeof secret !== 'string') throw new Error('the gateway answered the session exchange without a secret');
  keep(secret);
  return true;
}
