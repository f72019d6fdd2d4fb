// @ts-check
/** The gateway token for this browser tab: taken from `?token=` once, kept in sessionStorage, removed from the address bar. */

const KEY = 'vigil.token';

/**
 * The token to connect with: a `?token=` in the address wins (and is moved out of it at once, so it is neither
 * bookmarked, nor shared with a copied link, nor left in the history), else the one this tab kept.
 * @returns {string | null}
 */
export function takeSessionToken() {
  const url = new URL(window.location.href);
  const given = url.searchParams.get('token');
  if (given !== null) {
    url.searchParams.delete('token');
    window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
    if (given !== '') sessionStorage.setItem(KEY, given);
  }
  return sessionStorage.getItem(KEY);
}

/** @param {string} token Keeps `token` for this tab (typed into the token form). */
export function keepSessionToken(token) {
  sessionStorage.setItem(KEY, token);
}

/** Forgets the kept token (it was refused). */
export function forgetSessionToken() {
  sessionStorage.removeItem(KEY);
}
