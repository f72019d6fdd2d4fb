/**
 * Send → terminal event latency: a real `vigil run` (child process, offline thinker, 30 s beats) answers 200 sequential
 * `agent.send` calls over one typed-client connection, timed until each turn's `agent.reply` arrives, beside a bare
 * `ws` echo round trip to another child process in the same run (the floor any answer over a socket pays).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { connect, type VigilClient } from '../src/client/vigil-client.js';
import { startDaemon, type DaemonProcess } from '../test/e2e/daemon-process.js';
import { max, percentile, withTempDir } from './bench-utils.js';
import {
  differenceCheck,
  ratioInfo,
  renderReport,
  sanity,
  type BenchOutcome,
  type Check,
  type Detail,
  type Sanity,
} from './report.js';

/** How much to measure. */
export interface SendLatencyOptions {
  sends: number;
  warmup: number;
  /** Extra environment for the daemon (e.g. `VIGIL_CHECKPOINT_KEY`, for the sealed-store bench's comparison). */
  env?: Record<string, string>;
}

/** The load `npm run bench` uses. */
export const DEFAULT_SEND_LATENCY_OPTIONS: SendLatencyOptions = { sends: 200, warmup: 20 };

/** CONTRACT §7: a message is thought about at once; the reply should follow within this at the median. */
const P50_TARGET_MS = 20;
const BEAT_MS = 30_000;
const TOKEN = 'bench-send-latency-token';
const ROOT = fileURLToPath(new URL('../', import.meta.url));

// The floor runs in its own process, as the daemon does, so both round trips cross the same process boundary.
const ECHO_SERVER = `
import { WebSocketServer } from 'ws';
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
wss.on('connection', (ws) => ws.on('message', (data) => ws.send(data, { binary: false })));
wss.on('listening', () => process.stdout.write('PORT ' + wss.address().port + '\\n'));
`;

/** Starts the echo server; resolves with its URL and the child to stop. */
async function startEchoServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', ECHO_SERVER], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /PORT (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`the echo server exited (${code}) before listening`)));
  });
  return { url: `ws://127.0.0.1:${port}/`, child };
}

/** `count` sequential round trips of `frame` through the echo server; the latencies in ms. */
async function echoRoundTrips(url: string, frame: string, count: number): Promise<number[]> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const latencies: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const sentAt = performance.now();
    await new Promise<void>((resolve) => {
      ws.once('message', () => resolve());
      ws.send(frame);
    });
    latencies.push(performance.now() - sentAt);
  }
  ws.terminate();
  return latencies;
}

/** What the sequential sends measured. */
interface SendRun {
  /** Send to `agent.reply` for the turn, ms. */
  replyMs: number[];
  /** Send to the `agent.send` answer (the message logged, synced), ms. */
  ackMs: number[];
  replies: number;
  unanswered: number;
  turnIds: string[];
}

/** `count` sequential sends, each waiting for its turn's terminal event before the next. */
async function sequentialSends(client: VigilClient, count: number, label: string): Promise<SendRun> {
  const endedAt = new Map<string, { at: number; type: string }>();
  const waiters = new Map<string, () => void>();
  const feed = client.subscribe(['agent.reply', 'agent.unanswered']).subscribe((event) => {
    if (!('turnId' in event) || typeof event.turnId !== 'string') return;
    if (!endedAt.has(event.turnId)) endedAt.set(event.turnId, { at: performance.now(), type: event.type });
    waiters.get(event.turnId)?.();
  });
  // The subscription is live once its answer came back; a round trip on the same connection orders after it.
  await client.heartbeat.status();
  const run: SendRun = { replyMs: [], ackMs: [], replies: 0, unanswered: 0, turnIds: [] };
  try {
    for (let i = 0; i < count; i += 1) {
      const sentAt = performance.now();
      const { turnId } = await client.agent.send({ text: `Bench ${label} ${i}: how are you?`, from: 'bench' });
      run.ackMs.push(performance.now() - sentAt);
      run.turnIds.push(turnId);
      if (!endedAt.has(turnId)) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`no terminal event for ${turnId} within ${BEAT_MS / 2} ms`)),
            BEAT_MS / 2,
          );
          waiters.set(turnId, () => {
            clearTimeout(timer);
            resolve();
          });
        });
        waiters.delete(turnId);
      }
      const ended = endedAt.get(turnId)!;
      run.replyMs.push(ended.at - sentAt);
      if (ended.type === 'agent.reply') run.replies += 1;
      else run.unanswered += 1;
    }
  } finally {
    feed.unsubscribe();
  }
  return run;
}

/**
 * The daemon's own share, from the events' stamps (ms resolution): `agent.message` (stamped once the message is
 * synced) to `agent.reply` (stamped before the reply's own synced write), per turn.
 */
async function daemonSideMs(client: VigilClient, turnIds: readonly string[]): Promise<number[]> {
  const wanted = new Set(turnIds);
  const history = await client.events.history({
    types: ['agent.message', 'agent.reply'],
    limit: Math.min(1000, turnIds.length * 2),
  });
  const stamps = new Map<string, { message?: number; reply?: number }>();
  for (const event of history) {
    if (!('turnId' in event) || typeof event.turnId !== 'string' || !wanted.has(event.turnId)) continue;
    const entry = stamps.get(event.turnId) ?? {};
    entry[event.type === 'agent.message' ? 'message' : 'reply'] = Date.parse(event.at);
    stamps.set(event.turnId, entry);
  }
  return [...stamps.values()].flatMap(({ message, reply }) =>
    message === undefined || reply === undefined ? [] : [reply - message],
  );
}

/** Runs the benchmark. */
export async function sendLatencyBench(
  options: SendLatencyOptions = DEFAULT_SEND_LATENCY_OPTIONS,
): Promise<BenchOutcome> {
  return withTempDir('send-latency', async (dataDir) => {
    const checks: Check[] = [];
    const details: Detail[] = [];
    const sanityChecks: Sanity[] = [];
    const echo = await startEchoServer();
    let daemon: DaemonProcess | undefined;
    let client: VigilClient | undefined;
    try {
      const bootStarted = performance.now();
      daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0', '--thinker', 'offline'], {
        VIGIL_TOKEN: TOKEN,
        VIGIL_BEAT_MS: String(BEAT_MS),
        ...options.env,
      });
      const listening = await daemon.waitFor((l) => l.msg === 'gateway listening', 60_000, 'gateway listening');
      const bootMs = performance.now() - bootStarted;
      client = await connect({ url: String(listening.url), token: TOKEN, reconnect: false });

      // Warm both paths up (JIT, lazily loaded modules, LevelDB's first writes), then measure.
      const frame = JSON.stringify({
        jsonrpc: '2.0',
        method: 'agent.send',
        params: { text: 'Bench measure 0: how are you?', from: 'bench' },
        id: 1,
      });
      await echoRoundTrips(echo.url, frame, options.warmup);
      await sequentialSends(client, options.warmup, 'warmup');
      const bare = await echoRoundTrips(echo.url, frame, options.sends);
      const sends = await sequentialSends(client, options.sends, 'measure');
      const daemonSide = await daemonSideMs(client, sends.turnIds);

      const measure = (value: number, what: string) => ({ value, unit: 'ms', what });
      const [p50, p99, bareP50, bareP99] = [
        percentile(sends.replyMs, 50),
        percentile(sends.replyMs, 99),
        percentile(bare, 50),
        percentile(bare, 99),
      ];
      checks.push(
        differenceCheck(
          'send-reply-p50',
          'send → agent.reply p50, over a bare ws round trip',
          measure(p50, 'vigil p50'),
          measure(bareP50, 'bare ws p50'),
          '<=',
          P50_TARGET_MS,
        ),
        ratioInfo(
          'send-reply-p50-ratio',
          'send → agent.reply p50 / bare ws round trip p50',
          measure(p50, 'vigil p50'),
          measure(bareP50, 'bare ws p50'),
        ),
        ratioInfo(
          'send-reply-p99-ratio',
          'send → agent.reply p99 / bare ws round trip p99',
          measure(p99, 'vigil p99'),
          measure(bareP99, 'bare ws p99'),
        ),
      );
      details.push(
        { label: 'send → agent.reply p50', value: p50, unit: 'ms' },
        { label: 'send → agent.reply p99', value: p99, unit: 'ms' },
        { label: 'send → agent.reply max', value: max(sends.replyMs), unit: 'ms' },
        { label: 'send → agent.send answer (message logged) p50', value: percentile(sends.ackMs, 50), unit: 'ms' },
        { label: 'send → agent.send answer p99', value: percentile(sends.ackMs, 99), unit: 'ms' },
        {
          label: 'inside the daemon: agent.message → agent.reply stamps p50',
          value: percentile(daemonSide, 50),
          unit: 'ms',
        },
        {
          label: 'inside the daemon: agent.message → agent.reply stamps p99',
          value: percentile(daemonSide, 99),
          unit: 'ms',
        },
        { label: 'bare ws round trip p50', value: bareP50, unit: 'ms' },
        { label: 'bare ws round trip p99', value: bareP99, unit: 'ms' },
        { label: 'daemon start to gateway listening (tsx)', value: bootMs, unit: 'ms' },
      );
      sanityChecks.push(
        sanity(
          'every send got exactly one reply',
          sends.replies === options.sends && sends.unanswered === 0 && new Set(sends.turnIds).size === options.sends,
          `${sends.replies} replies, ${sends.unanswered} unanswered, ${new Set(sends.turnIds).size} turns of ${options.sends} sends`,
        ),
        sanity(
          'the journal holds every measured turn',
          daemonSide.length === options.sends,
          `${daemonSide.length} of ${options.sends}`,
        ),
        // Anything near the beat interval would mean the reply waited for a beat instead of waking the heartbeat.
        sanity(
          'every reply came from a woken think, not the 30 s beat',
          max(sends.replyMs) < BEAT_MS / 10,
          `slowest ${max(sends.replyMs).toFixed(1)} ms`,
        ),
        sanity('every echo came back', bare.length === options.sends, `${bare.length} of ${options.sends}`),
      );
      await client.close();
      client = undefined;
      daemon.kill('SIGTERM');
      const exit = await daemon.exited;
      sanityChecks.push(sanity('the daemon stopped cleanly (SIGTERM, exit 0)', exit === 0, `exit ${String(exit)}`));
    } finally {
      await client?.close().catch(() => undefined);
      if (daemon !== undefined && daemon.proc.exitCode === null && daemon.proc.signalCode === null)
        daemon.kill('SIGKILL');
      echo.child.kill('SIGTERM');
    }
    return {
      id: 'send-latency',
      title: 'Send → reply latency of a real daemon',
      checks,
      details,
      sanity: sanityChecks,
      notes: [
        `${options.sends} sequential agent.send calls over one typed-client connection (after ${options.warmup} to warm up), each timed until its agent.reply event; offline thinker, VIGIL_BEAT_MS=${BEAT_MS}, daemon defaults otherwise (checkpoints every 50 beats, log level info).`,
        'Each send pays two synced LevelDB writes (the message, then the reply with its event) and one think; the bare round trip echoes a frame of the same size through a ws server in another process.',
      ],
    };
  });
}

// `node --import tsx bench/send-latency.bench.ts` runs it alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const started = performance.now();
  const outcome = await sendLatencyBench();
  const durationMs = performance.now() - started;
  process.stdout.write(`${renderReport([{ ...outcome, durationMs }], durationMs)}\n`);
}
