/**
 * The operator's browser in tests: opens an authorization URL, follows the authorization server's redirects by hand
 * until one points at the gateway's `/oauth/callback`, and opens that (with no gateway token: the `state` is the
 * credential). Test authorization servers approve at once, so no page is ever filled in.
 */

/** What the callback page answered. */
export interface CallbackVisit {
  /** The callback URL the authorization server sent the browser to (code and state in its query). */
  callbackUrl: string;
  status: number;
  page: string;
}

/** More hops than any authorization server needs; a loop of redirects ends here rather than running forever. */
const MAX_HOPS = 10;

/**
 * Follows `authorizationUrl` to the callback under `callbackPrefix` (the gateway's public URL + `/oauth/callback`) and
 * opens it; throws, naming the hop, when a page answers without redirecting or the redirects never reach the callback.
 */
export async function visitAuthorizationUrl(authorizationUrl: string, callbackPrefix: string): Promise<CallbackVisit> {
  const callbackUrl = await followToCallback(authorizationUrl, callbackPrefix);
  const response = await fetch(callbackUrl, { redirect: 'manual' });
  return { callbackUrl, status: response.status, page: await response.text() };
}

/** Follows `authorizationUrl`'s redirects until one points under `callbackPrefix`, and returns that URL unopened. */
export async function followToCallback(authorizationUrl: string, callbackPrefix: string): Promise<string> {
  let url = authorizationUrl;
  for (let hop = 0; hop < MAX_HOPS; hop += 1) {
    if (url.startsWith(callbackPrefix)) return url;
    const response = await fetch(url, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null) {
      const body = await response.text();
      throw new Error(`${url} answered ${response.status} without a redirect: ${body.slice(0, 300)}`);
    }
    await response.body?.cancel();
    url = new URL(location, url).href;
  }
  throw new Error(`${authorizationUrl} did not reach ${callbackPrefix} in ${MAX_HOPS} redirects (last: ${url})`);
}
