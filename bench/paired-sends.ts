/**
 * Send → reply latency of two real daemons side by side (e.g. without and with VIGIL_CHECKPOINT_KEY), measured in
 * alternation: send i goes to one daemon, then to the other, the order swapped every round. On a shared machine the
 * load drifts over seconds; two runs one after the other compare two different loads, alternating sends compare the
 * two daemons under the same one.
 */
import { startDaemon, type DaemonProcess } from '../test/e2e/daemon-process.js';
import { connect, type VigilClient } from '../src/client/vigil-client.js';
import { withTempDir } from './bench-utils.js';

const TOKEN = 'bench-paired-sends-token-0123';
const BEAT_MS = 30_000;

/** One side of the pair. */
export interface PairedSide {
  label: string;
  /** Extra environment for this daemon. */
  env: Record<string, string>;
}

/** What each side measured. */
export interface PairedSideResult {
  label: string;
  /** Send to the turn's `agent.reply`, ms, one per measured send. */
  replyMs: number[];
  replies: number;
  unanswered: number;
  exit: number | string;
}

interface Running {
  side: PairedSide;
  daemon: DaemonProcess;
  client: VigilClient;
  send(text: string): Promise<{ ms: number; type: string }>;
  stop(): Promise<number | string>;
}

async function startSide(side: PairedSide, dataDir: string): Promise<Running> {
  const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0', '--thinker', 'offline'], {
    VIGIL_TOKEN: TOKEN,
    VIGIL_BEAT_MS: String(BEAT_MS),
    ...side.env,
  });
  const listening = await daemon.waitFor(
    (l) => l.msg === 'gateway listening',
    60_000,
    `${side.label}: gateway listening`,
  );
  const client = await connect({ url: String(listening.url), token: TOKEN, reconnect: false });
  const ended = new Map<string, string>();
  const waiters = new Map<string, () => void>();
  client.subscribe(['agent.reply', 'agent.unanswered']).subscribe((event) => {
    if (!('turnId' in event) || typeof event.turnId !== 'string') return;
    if (!ended.has(event.turnId)) ended.set(event.turnId, event.type);
    waiters.get(event.turnId)?.();
  });
  // The subscription is live once its answer came back; a round trip on the same connection orders after it.
  await client.heartbeat.status();
  return {
    side,
    daemon,
    client,
    async send(text) {
      const sentAt = performance.now();
      const { turnId } = await client.agent.send({ text, from: 'bench' });
      if (!ended.has(turnId)) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`${side.label}: no terminal event for ${turnId} within ${BEAT_MS / 2} ms`)),
            BEAT_MS / 2,
          );
          waiters.set(turnId, () => {
            clearTimeout(timer);
            resolve();
          });
        });
        waiters.delete(turnId);
      }
      return { ms: performance.now() - sentAt, type: ended.get(turnId)! };
    },
    async stop() {
      await client.close();
      daemon.kill('SIGTERM');
      return daemon.exited;
    },
  };
}

/** Starts both daemons, warms both up, then alternates `sends` measured sends between them. */
export async function pairedSends(
  sides: readonly [PairedSide, PairedSide],
  sends: number,
  warmup: number,
): Promise<[PairedSideResult, PairedSideResult]> {
  return withTempDir('paired-sends-a', (dirA) =>
    withTempDir('paired-sends-b', async (dirB) => {
      const running: Running[] = [];
      try {
        running.push(await startSide(sides[0], dirA), await startSide(sides[1], dirB));
        const results = running.map((r): PairedSideResult => ({
          label: r.side.label,
          replyMs: [],
          replies: 0,
          unanswered: 0,
          exit: -1,
        }));
        for (let i = 0; i < warmup + sends; i += 1) {
          const order = i % 2 === 0 ? [0, 1] : [1, 0];
          for (const at of order) {
            const { ms, type } = await running[at]!.send(
              `Bench ${i < warmup ? 'warmup' : 'measure'} ${i}: how are you?`,
            );
            if (i < warmup) continue;
            const result = results[at]!;
            result.replyMs.push(ms);
            if (type === 'agent.reply') result.replies += 1;
            else result.unanswered += 1;
          }
        }
        for (const [at, r] of running.entries()) results[at]!.exit = await r.stop();
        running.length = 0;
        return [results[0]!, results[1]!];
      } finally {
        for (const r of running) {
          await r.client.close().catch(() => undefined);
          if (r.daemon.proc.exitCode === null && r.daemon.proc.signalCode === null) r.daemon.kill('SIGKILL');
        }
      }
    }),
  );
}
