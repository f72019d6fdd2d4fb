/**
 * What sealing the whole store (VIGIL_CHECKPOINT_KEY) costs: the data dir's size after 100,000 conversation messages
 * with and without the key, a synced conversation append and a checkpoint save with and without it (same run,
 * interleaved), and two real daemons' send → reply latency, with and without it (sends alternating between them).
 * `node --import tsx bench/sealed-store.bench.ts` runs it alone (it is not part of `npm run bench`).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createSimulatedClock } from '../src/shared/clock.js';
import { CheckpointStore } from '../src/subsystems/checkpoint/checkpoint.store.js';
import { conversationSeqKey } from '../src/subsystems/conversation/conversation-codec.js';
import { ConversationLog } from '../src/subsystems/conversation/conversation-log.js';
import { sealStore } from '../src/subsystems/store/store-seal.js';
import { ValueCipher } from '../src/subsystems/store/value-cipher.js';
import { COMPRESS_MIN_BYTES, CONVERSATION_COMPRESS_MIN_BYTES } from '../src/subsystems/store/value-compression.js';
import { openVigilDb, SUBLEVELS, type VigilBatchOp, type VigilDb } from '../src/subsystems/store/vigil-db.js';
import type { ConversationMessage } from '../src/protocol/conversation.schema.js';
import { makeCheckpoint } from '../test/fixtures/checkpoint.fixture.js';
import { median, percentile, withTempDir } from './bench-utils.js';
import {
  pairedRatioCheck,
  ratioCheck,
  ratioInfo,
  renderReport,
  sanity,
  type BenchOutcome,
  type Check,
  type Detail,
  type Sanity,
} from './report.js';
import { pairedSends } from './paired-sends.js';

/** How much to measure. */
export interface SealedStoreOptions {
  messages: number;
  appends: number;
  saves: number;
  sends: number;
}

/** The load of a standalone run. */
export const DEFAULT_SEALED_STORE_OPTIONS: SealedStoreOptions = {
  messages: 100_000,
  appends: 300,
  saves: 60,
  sends: 150,
};

const KEY = 'c3'.repeat(32);
// Words of ordinary English, so LevelDB's snappy compression sees text like an agent's conversation.
const WORDS = (
  'the agent keeps a watch over the harbour and reports what it sees to the keeper every hour of the night, ' +
  'noting ships that pass, weather that turns, lights that fail, and questions the keeper asks about tides, ' +
  'supplies, repairs, letters from town, the budget for oil, and plans for the long winter ahead of them all'
).split(' ');

/** A deterministic message of 20 to 60 words. */
function messageText(i: number): string {
  let x = (i * 2654435761) >>> 0;
  const next = () => (x = (Math.imul(x ^ (x >>> 15), 2246822507) + 0x9e3779b9) >>> 0);
  const count = 20 + (next() % 41);
  return Array.from({ length: count }, () => WORDS[next() % WORDS.length]).join(' ');
}

/** Bytes of every file under `dir`. */
async function dirBytes(dir: string): Promise<number> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  const sizes = await Promise.all(files.map(async (file) => (await stat(join(file.parentPath, file.name))).size));
  return sizes.reduce((a, b) => a + b, 0);
}

async function openStore(dir: string, key: string | undefined): Promise<VigilDb> {
  return (await sealStore(await openVigilDb(dir), key, { closeInner: true })).db;
}

/**
 * Writes `count` messages in the conversation log's own layout (user and agent alternating), 1000 per batch (not
 * synced: the bytes are what matter here), closes, and measures the data dir; then compacts and measures again.
 */
async function sizeAfter(
  dir: string,
  key: string | undefined,
  count: number,
): Promise<{ bytes: number; compacted: number; textBytes: number }> {
  const db = await openStore(dir, key);
  const log = db.sublevel<string, ConversationMessage>(SUBLEVELS.conversation, { valueEncoding: 'json' });
  const at = Date.parse('2026-01-01T00:00:00Z');
  let textBytes = 0;
  for (let start = 1; start <= count; start += 1000) {
    const ops: VigilBatchOp[] = [];
    for (let seq = start; seq < start + 1000 && seq <= count; seq += 1) {
      const text = messageText(seq);
      textBytes += Buffer.byteLength(text);
      const message: ConversationMessage = {
        seq,
        turnId: `turn-${String(Math.ceil(seq / 2)).padStart(10, '0')}`,
        role: seq % 2 === 1 ? 'user' : 'assistant',
        text,
        at: at + seq * 1000,
      };
      ops.push({ type: 'put', sublevel: log, key: conversationSeqKey(seq), value: message });
    }
    await db.batch<string, unknown>(ops, {});
  }
  await db.close();
  const bytes = await dirBytes(dir);
  const inner = await openVigilDb(dir);
  await (inner as unknown as { compactRange(a: Buffer, b: Buffer, o: object): Promise<void> }).compactRange(
    Buffer.of(0),
    Buffer.alloc(8, 0xff),
    { keyEncoding: 'buffer' },
  );
  await inner.close();
  return { bytes, compacted: await dirBytes(dir), textBytes };
}

/**
 * Ms of each named async step, in interleaved rounds whose order is reversed every other round: a synced write right
 * after another one may find the disk in another state (its journal commit under way) than the first, and neither
 * side should always be the one that comes second. `samples[name][i]` is round i's, so the sides pair up by index.
 */
async function interleaved(
  steps: Record<string, () => Promise<unknown>>,
  rounds: number,
  warmup: number,
): Promise<Record<string, number[]>> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(steps).map((name) => [name, []]));
  const forward = Object.entries(steps);
  const backward = [...forward].reverse();
  for (let round = 0; round < warmup + rounds; round += 1) {
    for (const [name, step] of round % 2 === 0 ? forward : backward) {
      const start = performance.now();
      await step();
      if (round >= warmup) samples[name]!.push(performance.now() - start);
    }
  }
  return samples;
}

/** Runs the benchmark. */
export async function sealedStoreBench(
  options: SealedStoreOptions = DEFAULT_SEALED_STORE_OPTIONS,
): Promise<BenchOutcome> {
  const checks: Check[] = [];
  const details: Detail[] = [];
  const sanityChecks: Sanity[] = [];
  const ms = (value: number, what: string) => ({ value, unit: 'ms', what });

  // 1. Size after N messages.
  const plainSize = await withTempDir('sealed-size-plain', (dir) => sizeAfter(dir, undefined, options.messages));
  const sealedSize = await withTempDir('sealed-size-key', (dir) => sizeAfter(dir, KEY, options.messages));
  checks.push(
    ratioInfo(
      'sealed-store.size',
      `data dir after ${options.messages} messages: with key / without`,
      { value: sealedSize.bytes, unit: 'B', what: 'sealed' },
      { value: plainSize.bytes, unit: 'B', what: 'plain' },
    ),
    ratioInfo(
      'sealed-store.size-compacted',
      'the same, after a full compaction: with key / without',
      { value: sealedSize.compacted, unit: 'B', what: 'sealed' },
      { value: plainSize.compacted, unit: 'B', what: 'plain' },
    ),
  );
  details.push(
    { label: 'message text alone', value: plainSize.textBytes / 2 ** 20, unit: 'MiB' },
    { label: 'data dir without key', value: plainSize.bytes / 2 ** 20, unit: 'MiB' },
    { label: 'data dir with key', value: sealedSize.bytes / 2 ** 20, unit: 'MiB' },
    { label: 'data dir without key, compacted', value: plainSize.compacted / 2 ** 20, unit: 'MiB' },
    { label: 'data dir with key, compacted', value: sealedSize.compacted / 2 ** 20, unit: 'MiB' },
  );

  // 2. The hot path's writes: a synced conversation append and a checkpoint save, with and without the key.
  await withTempDir('sealed-hot', async (root) => {
    const plainDb = await openStore(join(root, 'plain'), undefined);
    const sealedDb = await openStore(join(root, 'sealed'), KEY);
    try {
      const clock = createSimulatedClock();
      const logs = [new ConversationLog(plainDb), new ConversationLog(sealedDb)] as const;
      await Promise.all(logs.map((log) => log.open()));
      const stores = [new CheckpointStore(plainDb, clock), new CheckpointStore(sealedDb, clock, { key: KEY })] as const;
      await Promise.all(stores.map((store) => store.open()));
      let n = 0;
      const append = (log: ConversationLog) => () =>
        log.append({ turnId: `turn-${n}`, role: 'user', text: messageText((n += 1)), at: clock.now() });
      const appendMs = await interleaved({ plain: append(logs[0]), sealed: append(logs[1]) }, options.appends, 20);
      const save = (store: CheckpointStore) => () => store.save(makeCheckpoint({ id: store.newId() }), 10);
      const saveMs = await interleaved({ plain: save(stores[0]), sealed: save(stores[1]) }, options.saves, 10);
      const readMs = await interleaved(
        { plain: () => logs[0].readLast(100), sealed: () => logs[1].readLast(100) },
        options.saves,
        10,
      );
      const cipher = new ValueCipher(KEY);
      // µs of the main thread's CPU time per call of `fn`, after 1,000 untimed calls: a loop of 10,000 calls timed by
      // the wall clock measured the machine's other load as much as the seal (3-10× the quiet figure under a load
      // average of 15).
      const cpuUsPerCall = (fn: () => void): number => {
        for (let i = 0; i < 1000; i += 1) fn();
        const started = process.threadCpuUsage();
        for (let i = 0; i < 10_000; i += 1) fn();
        const used = process.threadCpuUsage(started);
        return (used.user + used.system) / 10_000;
      };
      const storeKey = Buffer.from('!conversation!0000000000000001');
      // As SealedLevel seals a conversation value: deflated from the conversation's threshold.
      const sealOpenUs = (value: Buffer) =>
        cpuUsPerCall(() => cipher.open(storeKey, cipher.seal(storeKey, value, CONVERSATION_COMPRESS_MIN_BYTES)));
      const message = Buffer.from(
        JSON.stringify({ seq: 1, turnId: 'turn-1', role: 'user', text: messageText(1), at: 0 }),
      );
      const small = Buffer.from(JSON.stringify({ turnId: 'turn-0000000001', openedAt: 0, deadlineAt: 1 }));
      // What an append seals: its message (deflated) and the log's live count, written in the same batch.
      const countKey = Buffer.from('!conversation-meta!count');
      const count = Buffer.from(JSON.stringify({ count: 100_000 }));
      const appendSealUs = () =>
        cpuUsPerCall(() => {
          cipher.seal(storeKey, message, CONVERSATION_COMPRESS_MIN_BYTES);
          cipher.seal(countKey, count, CONVERSATION_COMPRESS_MIN_BYTES);
        });
      const messageSealed = cipher.seal(storeKey, message, CONVERSATION_COMPRESS_MIN_BYTES).byteLength;
      checks.push(
        pairedRatioCheck(
          'sealed-store.append',
          'synced conversation append: with key / without',
          { values: appendMs.sealed!, unit: 'ms', what: 'sealed' },
          { values: appendMs.plain!, unit: 'ms', what: 'plain' },
          '<=',
          1.2,
        ),
        ratioCheck(
          'sealed-store.checkpoint',
          'checkpoint save p50: with key / without',
          ms(median(saveMs.sealed!), 'sealed'),
          ms(median(saveMs.plain!), 'plain'),
          '<=',
          1.2,
        ),
        ratioInfo(
          'sealed-store.read',
          'read of the last 100 messages p50: with key / without',
          ms(median(readMs.sealed!), 'sealed'),
          ms(median(readMs.plain!), 'plain'),
        ),
      );
      details.push(
        { label: 'synced append p50 without key', value: median(appendMs.plain!), unit: 'ms' },
        { label: 'synced append p50 with key', value: median(appendMs.sealed!), unit: 'ms' },
        {
          label: 'synced append p50, with key − without',
          value: (median(appendMs.sealed!) - median(appendMs.plain!)) * 1000,
          unit: 'µs',
        },
        {
          label: "what an append seals (its message, deflated, and the log's count), main thread's CPU",
          value: appendSealUs(),
          unit: 'µs',
        },
        { label: 'synced append p99 with key', value: percentile(appendMs.sealed!, 99), unit: 'ms' },
        { label: 'checkpoint save p50 without key', value: median(saveMs.plain!), unit: 'ms' },
        { label: 'checkpoint save p50 with key', value: median(saveMs.sealed!), unit: 'ms' },
        {
          label: `seal + open of one ${message.byteLength}-byte message value (deflated, sealed ${messageSealed} B), CPU`,
          value: sealOpenUs(message),
          unit: 'µs',
        },
        {
          label: `seal + open of one ${small.byteLength}-byte value (under the ${CONVERSATION_COMPRESS_MIN_BYTES}-byte threshold: stored), CPU`,
          value: sealOpenUs(small),
          unit: 'µs',
        },
      );
      sanityChecks.push(
        sanity(
          'both logs hold every append',
          (await logs[0].count()) === (await logs[1].count()),
          `${await logs[0].count()} / ${await logs[1].count()}`,
        ),
      );
    } finally {
      await plainDb.close();
      await sealedDb.close();
    }
  });

  // 3. Real daemons' send → reply, with and without the key, sends alternating between the two (same load for both).
  const [plainSend, sealedSend] = await pairedSends(
    [
      { label: 'without key', env: {} },
      { label: 'with key', env: { VIGIL_CHECKPOINT_KEY: KEY } },
    ],
    options.sends,
    20,
  );
  checks.push(
    ratioCheck(
      'sealed-store.send-reply',
      'daemon send → agent.reply p50: with key / without (sends alternating between the two daemons)',
      ms(median(sealedSend.replyMs), 'sealed'),
      ms(median(plainSend.replyMs), 'plain'),
      '<=',
      1.2,
    ),
  );
  details.push(
    { label: 'send → agent.reply p50 without key', value: median(plainSend.replyMs), unit: 'ms' },
    { label: 'send → agent.reply p50 with key', value: median(sealedSend.replyMs), unit: 'ms' },
    { label: 'send → agent.reply p99 without key', value: percentile(plainSend.replyMs, 99), unit: 'ms' },
    { label: 'send → agent.reply p99 with key', value: percentile(sealedSend.replyMs, 99), unit: 'ms' },
  );
  for (const side of [plainSend, sealedSend]) {
    sanityChecks.push(
      sanity(
        `send bench ${side.label}: every send got exactly one reply`,
        side.replies === options.sends && side.unanswered === 0,
        `${side.replies} replies, ${side.unanswered} unanswered of ${options.sends}`,
      ),
      sanity(
        `send bench ${side.label}: the daemon stopped cleanly (SIGTERM, exit 0)`,
        side.exit === 0,
        `exit ${String(side.exit)}`,
      ),
    );
  }

  return {
    id: 'sealed-store',
    title: '12. Sealed store (VIGIL_CHECKPOINT_KEY): size and write cost',
    checks,
    details,
    sanity: sanityChecks,
    notes: [
      `Every value is sealed with AES-256-GCM under a key derived once at start: 36 bytes per value (header with a codec byte, IV, tag). LevelDB's snappy cannot shrink ciphertext, so a value of ${COMPRESS_MIN_BYTES} bytes or more (a conversation message from ${CONVERSATION_COMPRESS_MIN_BYTES}) is deflated (raw deflate, level 1) before it is sealed when that saves an eighth or more.`,
      'The daemons of the send → reply check run side by side and the sends alternate between them, so both see the same load on a shared machine.',
      'The size ratio is the price of sealing in bytes; retention (docs/operations/retention.md) bounds how many such values a data dir holds.',
    ],
  };
}

// `node --import tsx bench/sealed-store.bench.ts` runs it alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const started = performance.now();
  const outcome = await sealedStoreBench();
  const durationMs = performance.now() - started;
  process.stdout.write(`${renderReport([{ ...outcome, durationMs }], durationMs)}\n`);
}
