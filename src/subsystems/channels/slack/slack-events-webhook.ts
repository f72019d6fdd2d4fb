/**
 * Slack's Events API as a channel webhook: a request is taken only when its signature and timestamp check out (401
 * otherwise, nothing queued); `url_verification` is answered with its challenge; an event callback is queued like a
 * Socket Mode envelope and answered 200 only once its message is durable. When that takes longer than Slack waits
 * (3 s), it is answered 503: Slack sends it again (`X-Slack-Retry-Num`), and the inbox's record makes that nothing.
 */
import type { ChannelWebhook, WebhookAnswer, WebhookRequest } from '../channel-adapter.js';
import { checkSlackSignature } from './slack-signature.js';

/** How long a request waits for its message to be durable before Slack is told to send it again. */
const DURABLE_WAIT_MS = 2_500;

/** What the webhook hands its payloads to: the adapter's queue, `ack` called once durable. */
export type SlackDeliver = (payload: unknown, ack: () => void) => Promise<void>;

/** The Events API endpoint of one Slack channel. */
export class SlackEventsWebhook implements ChannelWebhook {
  constructor(
    private readonly signingSecret: string,
    private readonly deliver: SlackDeliver,
    private readonly now: () => number = Date.now,
  ) {}

  async handle(request: WebhookRequest): Promise<WebhookAnswer> {
    const { headers, body } = request;
    const check = checkSlackSignature(
      this.signingSecret,
      headers['x-slack-request-timestamp'],
      headers['x-slack-signature'],
      body,
      this.now(),
    );
    if (check !== 'ok') return json(401, { error: `slack request refused: ${check}` });
    let payload: { type?: unknown; challenge?: unknown };
    try {
      payload = JSON.parse(body) as typeof payload;
    } catch {
      return json(400, { error: 'expected a JSON body' });
    }
    if (payload.type === 'url_verification')
      return json(200, { challenge: typeof payload.challenge === 'string' ? payload.challenge : '' });
    let timer: NodeJS.Timeout | undefined;
    const durable = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), DURABLE_WAIT_MS);
      void this.deliver(payload, () => resolve(true)).catch(() => resolve(false));
    });
    const done = await durable;
    clearTimeout(timer);
    return done ? json(200, { ok: true }) : json(503, { error: 'not yet durable: send it again' });
  }
}

function json(status: number, value: object): WebhookAnswer {
  return { status, body: JSON.stringify(value), contentType: 'application/json' };
}
