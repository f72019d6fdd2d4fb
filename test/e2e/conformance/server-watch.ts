/**
 * One MCP server of a running daemon, watched as its operator would: on every `mcp.auth_required` for it, the link
 * `tools.list` gives the operator (an operate token) is opened in the operator's browser (once per URL), `up()`
 * waits until its tools are offered, and `call()` runs one of them with the offline thinker's `/tool` command and
 * returns the reply's text.
 */
import type { Subscription } from 'rxjs';
import type { VigilClient } from '../../../src/client/vigil-client.js';
import { visitAuthorizationUrl } from './operator-browser.js';

/** An event as the feed carries it, read by its fields (the auth events are newer than some clients' schemas). */
type FeedEvent = { type: string; seq?: number } & Record<string, unknown>;

const POLL_MS = 100;

/** Watches `server` of the daemon behind `client`; `callbackPrefix` is the gateway's public URL + `/oauth/callback`. */
export class ServerWatch {
  /** Sign-ins started by the daemon (`mcp.auth_required`) so far. */
  signIns = 0;
  /** Sign-ins whose callback page has been opened. */
  visits = 0;
  private failure: string | undefined;
  /** Where the server stands by the events seen: `up` after `mcp.server_up`, `signed_in` after `mcp.auth_completed`. */
  private state: 'unknown' | 'up' | 'signed_in' | 'needs_auth' | 'down' = 'unknown';
  /** The tool count of the last `mcp.server_up` (a server may offer none). */
  private toolCount = 0;
  private readonly visited = new Set<string>();
  private readonly replies = new Map<string, string>();
  private readonly feed: Subscription;
  private browsing: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: VigilClient,
    private readonly server: string,
    private readonly callbackPrefix: string,
    private readonly say: (line: string) => void,
  ) {
    this.feed = client
      .subscribe(['mcp.*', 'agent.reply', 'agent.unanswered'], { after: 0 })
      .subscribe({ next: (event) => this.seen(event), error: () => undefined });
  }

  /** Resolves once the server's tools are offered and no sign-in is outstanding; rejects on `mcp.auth_failed`. */
  async up(timeoutMs = 40_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.failure !== undefined) throw new Error(`the sign-in failed: ${this.failure}`);
      await this.browsing;
      const entries = (await this.client.tools.list()) as unknown as Array<Record<string, unknown>>;
      const mine = entries.filter((entry) => entry['server'] === this.server);
      const waiting = mine.some((entry) => entry['state'] === 'needs_auth');
      const available = mine.some((entry) => entry['available'] === true);
      // Connected and listed; or signed in again (a step-up) on a connection whose tools stayed offered.
      const ready =
        (this.state === 'up' && (this.toolCount === 0 || available)) || (this.state === 'signed_in' && available);
      if (ready && !waiting) return;
      if (Date.now() > deadline) throw new Error(`the server was not up in ${timeoutMs} ms: ${JSON.stringify(mine)}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** Calls the server's tool `tool` (its name on the server) through the daemon and returns the reply's text. */
  async call(tool: string, args: Record<string, unknown>, timeoutMs = 30_000): Promise<string> {
    const entries = (await this.client.tools.list()) as unknown as Array<Record<string, unknown>>;
    const entry = entries.find((e) => e['server'] === this.server && e['tool'] === tool);
    if (entry === undefined) throw new Error(`${this.server} offers no tool ${tool}: ${JSON.stringify(entries)}`);
    const { turnId } = await this.client.agent.send({ text: `/tool ${String(entry['name'])} ${JSON.stringify(args)}` });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reply = this.replies.get(turnId);
      if (reply !== undefined) return reply;
      if (Date.now() > deadline) throw new Error(`no reply to the /tool ${tool} turn in ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** True once the daemon has asked for a sign-in beyond the first `count` (waits up to `timeoutMs` for it). */
  async signInSince(count: number, timeoutMs = 5_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.signIns <= count) {
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return true;
  }

  /** Stops watching. */
  close(): void {
    this.feed.unsubscribe();
  }

  private seen(event: FeedEvent): void {
    if (event.type === 'agent.reply' || event.type === 'agent.unanswered') {
      const text = event['text'];
      this.replies.set(String(event['turnId']), typeof text === 'string' ? text : event.type);
      return;
    }
    if (event['server'] !== this.server) return;
    if (event.type === 'mcp.auth_failed') this.failure = String(event['error']);
    if (event.type === 'mcp.server_up') this.toolCount = Number(event['tools']);
    if (event.type === 'mcp.server_up') this.state = 'up';
    if (event.type === 'mcp.auth_completed') this.state = 'signed_in';
    if (event.type === 'mcp.server_down') this.state = 'down';
    if (event.type === 'mcp.auth_required') {
      this.state = 'needs_auth';
      this.signIns += 1;
      // One sign-in at a time, in order, as a person would; the event names no URL, the operator's tools.list has it.
      this.browsing = this.browsing.then(() => this.signIn());
    }
    if (event.type === 'mcp.auth_completed' || event.type === 'mcp.server_up' || event.type === 'mcp.server_down')
      this.say(`${event.type} ${JSON.stringify(event)}`);
  }

  /** Opens the sign-in link `tools.list` gives the operator (an operate token) for the server, once per link. */
  private async signIn(): Promise<void> {
    const entries = (await this.client.tools.list().catch(() => [])) as unknown as Array<Record<string, unknown>>;
    // The server's own entry (a tool of it is `needs_auth` too during a step-up, with no link).
    const url = entries.find(
      (entry) => entry['server'] === this.server && !('name' in entry) && entry['state'] === 'needs_auth',
    )?.['authorizationUrl'];
    if (typeof url !== 'string') {
      this.say('no sign-in link in tools.list (is the token operate?)');
      return;
    }
    if (this.visited.has(url)) return;
    this.visited.add(url);
    await this.visit(url);
  }

  private async visit(url: string): Promise<void> {
    this.say(`signing in: ${url}`);
    try {
      const visit = await visitAuthorizationUrl(url, this.callbackPrefix);
      this.visits += 1;
      this.say(`callback answered ${visit.status}: ${visit.page.replace(/\s+/g, ' ').slice(0, 200)}`);
    } catch (err) {
      this.say(`the sign-in page failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
