/**
 * Every reply reaches a live subscriber while older turns are summarised: `vigil run` with the Anthropic thinker (the
 * real SDK against the fake Messages API) at VIGIL_CONTEXT_TOKENS=6000, 60 exchanges of ~2,000 characters, one
 * WebSocket and one SSE subscriber. Each `agent.reply` arrives live on both, and each live stream equals
 * `events.history` for its types: none lost, none twice, in seq order. (Before publication was ordered, about one
 * reply in four was stamped before a summary's events, published after them, and dropped by the subscriber.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { startFakeMessagesApi, type FakeMessagesApi } from '../fixtures/fake-messages-api.js';
import { answerLikeAModel, filler, isSummaryRequest } from '../fixtures/summarising-model.js';
import { openSse, type SseStream } from '../gateway/sse-client.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';

const TOKEN = 'live-feed-token-5b3e1f';
const EXCHANGES = 60;
const WS_TYPES = ['agent.*', 'think.*'];
const SSE_TYPES = ['agent.reply', 'checkpoint.*'];

let api: FakeMessagesApi;
let dataDir: string;
let daemon: DaemonProcess;
let client: VigilClient;
let sse: SseStream;

beforeAll(async () => {
  api = await startFakeMessagesApi();
  for (let i = 0; i < 1000; i++) api.enqueue({ kind: 'respond', respond: (request) => answerLikeAModel(request) });
  dataDir = await mkdtemp(join(tmpdir(), 'vigil-live-feed-'));
  daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0', '--thinker', 'anthropic'], {
    ...FAST_ENV,
    VIGIL_CONTEXT_TOKENS: '6000',
    VIGIL_DEBRIEF_AFTER_S: '3600',
    VIGIL_TOKEN: TOKEN,
    ANTHROPIC_API_KEY: 'sk-test',
    ANTHROPIC_BASE_URL: api.url,
  });
  const listening = await daemon.waitFor((line) => line.msg === 'gateway listening', 20_000, 'gateway listening');
  client = await connect({ url: String(listening.url), token: TOKEN, reconnect: false });
});

afterAll(async () => {
  sse?.close();
  await client?.close();
  if (daemon !== undefined && daemon.proc.exitCode === null) {
    daemon.kill('SIGKILL');
    await daemon.exited;
  }
  await api?.close();
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
});

/** Every journaled event of `types` after `after`, paging forward. */
async function historyAfter(types: string[], after: number): Promise<VigilEvent[]> {
  const all: VigilEvent[] = [];
  for (let from = after; ;) {
    const page = await client.events.history({ types, after: from, limit: 1000 });
    all.push(...page);
    if (page.length < 1000) return all;
    from = page.at(-1)!.seq;
  }
}

/** Resolves once `test` holds, checking whenever `poke` is called; rejects after `ms` with `what`. */
function waitUntil(test: () => boolean, ms: number, what: () => string): { promise: Promise<void>; poke: () => void } {
  let poke = () => {};
  const promise = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(what())), ms);
    poke = () => {
      if (!test()) return;
      clearTimeout(timer);
      resolve();
    };
    poke();
  });
  return { promise, poke };
}

describe('the live feed while older turns are summarised', () => {
  it('delivers all 60 replies live on WebSocket and SSE, each stream equal to events.history for its types', async () => {
    const start = (await client.events.history({ limit: 1 })).at(-1)?.seq ?? 0;
    const wsLive: VigilEvent[] = [];
    let onWs = () => {};
    const subscription = client.subscribe(WS_TYPES, { after: start }).subscribe((event) => {
      wsLive.push(event);
      onWs();
    });
    sse = await openSse(`${daemonUrl()}/events?types=${SSE_TYPES.join(',')}`, {
      authorization: `Bearer ${TOKEN}`,
      'last-event-id': String(start),
    });

    for (let n = 1; n <= EXCHANGES; n++) {
      const { turnId } = await client.agent.send({ text: filler(n, 2000) });
      const isReply = (event: VigilEvent) => event.type === 'agent.reply' && event.turnId === turnId;
      const arrived = waitUntil(
        () => wsLive.some(isReply),
        20_000,
        () => `the reply to exchange ${n} (${turnId}) never reached the WebSocket subscriber`,
      );
      onWs = arrived.poke;
      await arrived.promise;
      const onSse = (m: { id?: string; data: string }) =>
        m.id !== undefined && isReply(JSON.parse(m.data) as VigilEvent);
      await sse.waitFor((messages) => messages.some(onSse), `the reply to exchange ${n} (${turnId}) on SSE`, 20_000);
    }
    // Older turns really were summarised meanwhile (the situation in which replies used to go missing).
    expect(api.requests.filter(isSummaryRequest).length).toBeGreaterThan(0);

    // Each live stream equals the journal's events of its types, up to the newest event it had before history was
    // asked (the feed goes on meanwhile; what it received before the request, the daemon had delivered before it).
    const wsSeen = [...wsLive];
    const sseSeen = sse.messages.filter((m) => m.id !== undefined).map((m) => JSON.parse(m.data) as VigilEvent);
    const wsHistory = await historyAfter(WS_TYPES, start);
    const wsUpTo = wsSeen.at(-1)!.seq;
    expect(wsSeen.map((e) => e.seq)).toEqual(wsHistory.filter((e) => e.seq <= wsUpTo).map((e) => e.seq));
    expect(wsSeen).toEqual(wsHistory.filter((e) => e.seq <= wsUpTo));
    const sseHistory = await historyAfter(SSE_TYPES, start);
    const sseUpTo = sseSeen.at(-1)!.seq;
    expect(sseSeen.map((e) => e.seq)).toEqual(sseHistory.filter((e) => e.seq <= sseUpTo).map((e) => e.seq));
    const sseLive = sseSeen;
    expect(sseLive.filter((e) => e.type === 'agent.reply')).toHaveLength(EXCHANGES);
    expect(wsLive.filter((e) => e.type === 'agent.reply')).toHaveLength(EXCHANGES);
    subscription.unsubscribe();
  }, 240_000);
});

function daemonUrl(): string {
  const line = daemon.lines.find((l) => l.msg === 'gateway listening');
  return String(line!.url);
}
