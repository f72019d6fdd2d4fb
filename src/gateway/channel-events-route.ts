/**
 * `POST /channels/NAME/events`: where a chat platform pushes its updates (Slack's Events API, CONTRACT §18). It needs
 * no gateway token — Slack cannot hold one — so the channel's adapter is the only judge: it verifies the platform's
 * signature (and timestamp) and refuses anything else before a byte of it is queued. A channel that takes no pushes,
 * or no channel of that name, is a 404; the body is bounded.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChannelWebhook } from '../runtime/facade/channels.facade.js';
import type { VigilLogger } from '../shared/logger.js';

/** The route's paths: `/channels/{name}/events`. */
export const CHANNEL_EVENTS_PATH = /^\/channels\/([A-Za-z0-9][A-Za-z0-9_-]{0,31})\/events$/;

// Slack's event payloads are a few kilobytes; a megabyte is more than any platform sends.
const MAX_BODY_BYTES = 1_000_000;

/** What the route needs of the runtime. */
export interface ChannelWebhooks {
  webhook(name: string): ChannelWebhook | undefined;
}

/** Answers a platform's push to `name`'s webhook. */
export function handleChannelEvents(
  req: IncomingMessage,
  res: ServerResponse,
  name: string,
  channels: ChannelWebhooks,
  log: VigilLogger,
): void {
  const webhook = channels.webhook(name);
  if (webhook === undefined) return answer(res, 404, JSON.stringify({ error: `no channel ${name} takes events` }));
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
    return answer(res, 405, JSON.stringify({ error: `${req.method ?? ''} is not allowed here` }));
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      answer(res, 413, JSON.stringify({ error: 'body too large' }));
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (res.headersSent) return;
    const headers: Record<string, string | undefined> = {};
    for (const [key, value] of Object.entries(req.headers)) headers[key] = Array.isArray(value) ? value[0] : value;
    webhook.handle({ headers, body: Buffer.concat(chunks).toString('utf8') }).then(
      (reply) => answer(res, reply.status, reply.body, reply.contentType),
      (err: unknown) => {
        log.warn({ channel: name, err: err instanceof Error ? err.message : String(err) }, 'channel event failed');
        answer(res, 500, JSON.stringify({ error: 'internal error' }));
      },
    );
  });
}

function answer(res: ServerResponse, status: number, body: string, contentType = 'application/json'): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
