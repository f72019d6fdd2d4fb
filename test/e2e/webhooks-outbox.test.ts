/**
 * Webhooks across `kill -9` of a real `vigil run` (CONTRACT §16), against a real local HTTP receiver that verifies
 * every signature with the `standardwebhooks` package: after kills at seeded moments during a burst, the receiver has
 * every event of its types in seq order with no gap against `events.history` (repeats carry the same webhook-id and
 * body); a receiver that is down and comes back is caught up in order; 410 disables; redeliver sends again from the
 * seq given.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import { seededRandom, seedFrom } from '../faults/seeded-random.js';
import { startDaemon, type DaemonProcess } from './daemon-process.js';

const TOKEN = 'webhooks-e2e-token-0123456789abcdef';
// Beats every 100 ms make the burst: ten heartbeat.beat events a second, each one a webhook.
const ENV = {
  VIGIL_TOKEN: TOKEN,
  VIGIL_BEAT_MS: '100',
  VIGIL_BEAT_MIN_MS: '100',
  VIGIL_BEAT_MAX_MS: '100',
  VIGIL_CHECKPOINT_INTERVAL_BEATS: '5',
  VIGIL_LOG_LEVEL: 'info',
  VIGIL_WEBHOOK_TIMEOUT_MS: '2000',
  // The receiver is on this host (a private destination).
  VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
};
const TYPES = ['heartbeat.beat', 'agent.reply'];
const WAIT_MS = 60_000;

interface Delivery {
  id: string;
  body: string;
  seq: number;
}

/** A receiver on 127.0.0.1: `/hook` answers as `mode` says, `/gone` always 410; every request's signature is checked. */
class Receiver {
  readonly deliveries: Delivery[] = [];
  readonly badSignatures: string[] = [];
  mode: 'ok' | 'down' = 'ok';
  secrets = new Map<string, string>();
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '';
        const secret = this.secrets.get(path);
        const headers = {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        };
        try {
          if (secret === undefined) throw new Error(`no secret for ${path}`);
          new Webhook(secret).verify(body, headers);
        } catch (err) {
          this.badSignatures.push(`${path}: ${String(err)}`);
        }
        if (path === '/gone') {
          res.writeHead(410).end();
          return;
        }
        if (this.mode === 'down') {
          res.writeHead(503).end('down');
          return;
        }
        this.deliveries.push({ id: headers['webhook-id'], body, seq: (JSON.parse(body) as { seq: number }).seq });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }
}

interface Life {
  daemon: DaemonProcess;
  client: VigilClient;
}

let root: string;
const receiver = new Receiver();
const started: DaemonProcess[] = [];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'vigil-webhooks-e2e-'));
  await receiver.start();
});
afterAll(async () => {
  for (const daemon of started) daemon.kill('SIGKILL');
  await receiver.close();
  await rm(root, { recursive: true, force: true });
});

async function start(dataDir: string): Promise<Life> {
  const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], ENV);
  started.push(daemon);
  const line = await daemon.waitFor((l) => l.msg === 'gateway listening', WAIT_MS, 'gateway listening');
  return { daemon, client: await connect({ url: String(line.url), token: TOKEN, reconnect: false }) };
}

async function kill(life: Life): Promise<void> {
  life.daemon.kill('SIGKILL');
  expect(await life.daemon.exited).toBe('SIGKILL');
  await life.client.close().catch(() => undefined);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Every journaled event of `TYPES` after `after` up to `through`, oldest first (paged). */
async function history(client: VigilClient, after: number, through: number): Promise<Array<{ seq: number }>> {
  const events: Array<{ seq: number }> = [];
  let cursor = after;
  for (;;) {
    const page = (await client.events.history({ types: TYPES, after: cursor, limit: 1000 })) as Array<{ seq: number }>;
    for (const event of page) if (event.seq <= through) events.push(event);
    const last = page.at(-1);
    if (last === undefined || last.seq >= through || page.length < 1000) return events;
    cursor = last.seq;
  }
}

/** Waits until endpoint `id` has received every event up to the newest journaled now; that seq. */
async function caughtUp(client: VigilClient, id: string): Promise<number> {
  const newest = (await client.events.history({ types: TYPES, limit: 1 }))[0]?.seq ?? 0;
  await until(`webhook ${id} to deliver through seq ${newest}`, async () => {
    const endpoint = (await client.webhooks.list()).find((w) => w.id === id);
    return endpoint !== undefined && endpoint.deliveredSeq >= newest;
  });
  return newest;
}

/**
 * The receiver's deliveries from index `from` on, checked against the journal: first arrivals in increasing seq order,
 * every journaled event in (after, through] among them, and every repeat with the same webhook-id and body.
 */
async function expectInOrder(client: VigilClient, from: number, after: number, through: number): Promise<void> {
  const journaled = await history(client, after, through);
  const firstBySeq = new Map<number, Delivery>();
  const order: number[] = [];
  for (const delivery of receiver.deliveries.slice(from)) {
    if (delivery.seq <= after || delivery.seq > through) continue;
    const first = firstBySeq.get(delivery.seq);
    if (first === undefined) {
      firstBySeq.set(delivery.seq, delivery);
      order.push(delivery.seq);
    } else {
      expect(delivery.id, `a repeat of seq ${delivery.seq}`).toBe(first.id);
      expect(delivery.body, `a repeat of seq ${delivery.seq}`).toBe(first.body);
    }
  }
  expect(order).toEqual([...order].sort((a, b) => a - b));
  expect(order).toEqual(journaled.map((event) => event.seq));
  // The body is the event exactly as the journal (and the feed) carries it.
  for (const event of journaled) expect(JSON.parse(firstBySeq.get(event.seq)!.body)).toEqual(event);
}

describe('webhooks across kill -9 (real daemon, real receiver)', () => {
  it('delivers every event of its types in order through kills, an outage, a 410 and a redeliver', async () => {
    const seed = seedFrom(process.env, 'VIGIL_CRASH_SEED');
    const rng = seededRandom(seed);
    const dataDir = join(root, 'data');
    let life = await start(dataDir);

    const added = await life.client.webhooks.add({ url: `${receiver.url}/hook`, types: TYPES, name: 'receiver' });
    receiver.secrets.set('/hook', added.secret);
    const gone = await life.client.webhooks.add({ url: `${receiver.url}/gone`, types: ['heartbeat.beat'] });
    receiver.secrets.set('/gone', gone.secret);
    const startSeq = (await life.client.webhooks.list()).find((w) => w.id === added.id)!.deliveredSeq;

    // A burst (beats, and replies to messages), killed at seeded moments.
    for (let round = 0; round < 4; round += 1) {
      void life.client.agent.send({ text: `message ${round}` }).catch(() => undefined);
      await sleep(rng.int(200, 1500));
      await kill(life);
      life = await start(dataDir);
    }
    let through = await caughtUp(life.client, added.id);
    expect(receiver.badSignatures, `seed ${seed}`).toEqual([]);
    await expectInOrder(life.client, 0, startSeq, through);

    // 410 Gone disabled the other endpoint at once, with webhook.disabled.
    await until('the 410 endpoint to be disabled', async () =>
      (await life.client.webhooks.list()).some((w) => w.id === gone.id && w.state === 'disabled'),
    );
    const disabled = await life.client.events.history({ types: ['webhook.disabled'], limit: 10 });
    expect(disabled.some((event) => (event as { id?: string }).id === gone.id)).toBe(true);

    // The receiver down (503) for a while: failing, then caught up in order once it answers again.
    // From the last event delivered before the receiver goes down (beats go on arriving until then).
    const marker = receiver.deliveries.length;
    const before = receiver.deliveries.at(-1)!.seq;
    receiver.mode = 'down';
    await until('the endpoint to be failing', async () =>
      (await life.client.webhooks.list()).some((w) => w.id === added.id && w.state === 'failing'),
    );
    // Down through three failed attempts in a row (the backoff's first retries come seconds apart; outages of up to
    // two minutes, on the simulated clock, are the simulator's): waited for by the attempt log, not by time.
    await until('three failed attempts in a row', async () => {
      const attempts = await life.client.webhooks.deliveries({ id: added.id, limit: 3 });
      return attempts.length === 3 && attempts.every((attempt) => attempt.status === 503);
    });
    receiver.mode = 'ok';
    through = await caughtUp(life.client, added.id);
    await expectInOrder(life.client, marker, before, through);
    const recovered = await life.client.events.history({ types: ['webhook.failing', 'webhook.recovered'], limit: 10 });
    expect(recovered.map((event) => event.type)).toContain('webhook.recovered');

    // Redeliver from a seq in the middle: everything after it goes out again, in order, with the same ids.
    const journaled = await history(life.client, startSeq, through);
    const afterSeq = journaled[Math.floor(journaled.length / 2)]!.seq;
    const again = receiver.deliveries.length;
    expect(await life.client.webhooks.redeliver({ id: added.id, afterSeq })).toBe(true);
    const redelivered = await caughtUp(life.client, added.id);
    // Beats delivered while the call was on its way may land first; the resend starts right after them.
    const firstAfter = journaled.find((event) => event.seq > afterSeq)!.seq;
    const restart = receiver.deliveries.findIndex((d, index) => index >= again && d.seq === firstAfter);
    expect(restart).toBeGreaterThanOrEqual(again);
    expect(restart - again).toBeLessThanOrEqual(5);
    await expectInOrder(life.client, restart, afterSeq, redelivered);

    const attempts = await life.client.webhooks.deliveries({ id: added.id, limit: 5 });
    expect(attempts.length).toBeGreaterThan(0);
    expect(JSON.stringify(await life.client.webhooks.list())).not.toContain(added.secret);
    await kill(life);
  }, 240_000);
});
