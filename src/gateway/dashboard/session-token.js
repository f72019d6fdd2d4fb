// @ts-check
/**
 * The dashboard's session: the page never holds the token. Opened with `/?token=`, the gateway has already traded it
 * for an HttpOnly cookie (the page's URL never carries it); a token pasted into the form is traded the same way here,
 * in a POST header, never in a URL, and forgotten at once.
 */

/** Where the gateway trades a token for the session cookie (dashboard-route.ts, DASHBOARD_SESSION_PATH). */
const SESSION_PATH = '/dashboard/session';

/**
 * Trades `token` for this browser's session cookie; resolves true once set, false if the gateway refused the token.
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
  if (answer.status === 204) return true;
  if (answer.status === 401) return false;
  throw new Error(`the gateway answered ${answer.status} to the session exchange`);
}
