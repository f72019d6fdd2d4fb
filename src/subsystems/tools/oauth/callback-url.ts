/**
 * The URL the authorization server sends the operator's browser back to: VIGIL_PUBLIC_URL + `/oauth/callback`, or the
 * gateway's own URL once it listens (its port is known only then when VIGIL_PORT is 0). A sign-in waits for it: a
 * redirect URI registered or sent before the gateway listens would point nowhere.
 */
import { OAUTH_CALLBACK_PATH } from '../../../protocol/tools.schema.js';

/** The redirect URI for a gateway reached at `publicUrl` (`http://host:port`, or a reverse proxy's URL with a path). */
export function callbackUrlFor(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${OAUTH_CALLBACK_PATH}`;
}

/** The redirect URI, set once (configured at boot, or when the gateway listens) and awaited until then. */
export class CallbackUrl {
  private value: string | undefined;
  private readonly waiting: Promise<string>;
  private resolve!: (url: string) => void;

  constructor(publicUrl?: string) {
    this.waiting = new Promise<string>((resolve) => (this.resolve = resolve));
    if (publicUrl !== undefined) this.setPublicUrl(publicUrl);
  }

  /** Names the gateway as a browser reaches it; the first call wins (a configured VIGIL_PUBLIC_URL over the bound address). */
  setPublicUrl(publicUrl: string): void {
    if (this.value !== undefined) return;
    this.value = callbackUrlFor(publicUrl);
    this.resolve(this.value);
  }

  /** The redirect URI, or undefined while the gateway's URL is not known yet. */
  get current(): string | undefined {
    return this.value;
  }

  /** The redirect URI once known. */
  known(): Promise<string> {
    return this.waiting;
  }
}
