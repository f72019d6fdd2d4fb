/** Bench 2: saving and loading the realistic agent's checkpoint, against gzipping the whole document into one LevelDB value. */
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { Level } from 'level';
import { configFromDefaults } from '../src/config.js';
import { snapshotCheckpoint } from '../src/heartbeat/checkpoint-snapshot.js';
import { createRuntime } from '../src/runtime/create-runtime.js';
import { createSimulatedClock } from '../src/shared/clock.js';
import { encodeCheckpoint } from '../src/subsystems/checkpoint/checkpoint.codec.js';
import { CognitiveCheckpointSchema, type CognitiveCheckpoint } from '../src/protocol/checkpoint-format.schema.js';
import type { ConversationMessage } from '../src/protocol/conversation.schema.js';
import { internalsOf, median } from './bench-utils.js';
import { CountingThinker } from './counting-thinker.js';
import { copyRealisticAgent, fixtureConfig, REALISTIC, summarise } from './realistic-agent.js';
import { ratioCheck, ratioInfo, sanity, type BenchOutcome } from './report.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** How many saves and loads to time. */
export interface CheckpointIoOptions {
  warmup: number;
  runs: number;
}

export const DEFAULT_CHECKPOINT_IO_OPTIONS: CheckpointIoOptions = { warmup: 10, runs: 30 };

/** The naive peer's document: the whole state and every message, rewritten on each save. */
interface WholeDocument {
  checkpoint: CognitiveCheckpoint;
  messages: ConversationMessage[];
}

const NAIVE_KEY = 'whole-document';

/** Median milliseconds of each named async step, timed in interleaved rounds so drift hits every step alike. */
async function timeInterleaved(
  steps: Record<string, () => Promise<unknown>>,
  options: CheckpointIoOptions,
): Promise<Record<string, number>> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(steps).map((name) => [name, []]));
  for (let round = 0; round < options.warmup + options.runs; round += 1) {
    for (const [name, step] of Object.entries(steps)) {
      const start = performance.now();
      await step();
      if (round >= options.warmup) samples[name]!.push(performance.now() - start);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
}

/** Runs bench 2 on a copy of the realistic agent seeded under `root`. */
export async function checkpointIoBench(
  root: string,
  options: CheckpointIoOptions = DEFAULT_CHECKPOINT_IO_OPTIONS,
): Promise<BenchOutcome> {
  const dataDir = await copyRealisticAgent(root, 'checkpoint-io');
  const clock = createSimulatedClock(Date.now());
  const runtime = await createRuntime({ clock, thinker: new CountingThinker(), config: fixtureConfig(dataDir) });
  const naiveDb = new Level<string, Uint8Array>(join(root, 'naive-db'), { valueEncoding: 'view' });
  await naiveDb.open();
  try {
    runtime.start();
    const agent = await summarise(runtime);
    const { store, checkpoints, conversation } = internalsOf(runtime).parts;
    const context = () => internalsOf(runtime).actor.getSnapshot().context;
    const maxCount = configFromDefaults({}).checkpointMaxCount;
    const history = await conversation.readAfter(0);

    // The naive limit: stringify everything, gzip on the thread pool, one durable put; and back.
    let naiveBytes = 0;
    let naiveLoaded: WholeDocument | null = null;
    const naiveSave = async (): Promise<void> => {
      const whole: WholeDocument = {
        checkpoint: snapshotCheckpoint(context(), 'whole', 'integrate'),
        messages: history,
      };
      const bytes = await gzipAsync(Buffer.from(JSON.stringify(whole), 'utf8'));
      await naiveDb.put(NAIVE_KEY, bytes, { sync: true });
      naiveBytes = bytes.byteLength;
    };
    const naiveLoad = async (): Promise<void> => {
      const bytes = await naiveDb.get(NAIVE_KEY);
      naiveLoaded = JSON.parse((await gunzipAsync(bytes)).toString('utf8')) as WholeDocument;
    };

    // Vigil: what a periodic checkpoint does, and what a restore does.
    const storedSizes: number[] = [];
    let restored: CognitiveCheckpoint | null = null;
    let replayed: ConversationMessage[] = [];
    const vigilSave = async (): Promise<void> => {
      const saved = await store.save(snapshotCheckpoint(context(), store.newId(), 'integrate'), maxCount);
      storedSizes.push(saved.sizeBytes);
    };
    const vigilLoad = async (): Promise<void> => {
      restored = await checkpoints.loadNewestValid();
      replayed = await conversation.readAfter(restored!.conversation.watermark);
    };
    const vigilLoadWithHistory = async (): Promise<void> => {
      const checkpoint = await checkpoints.loadNewestValid();
      await conversation.readAfter(0);
      restored = checkpoint;
    };

    const ms = await timeInterleaved({ naiveSave, vigilSave, naiveLoad, vigilLoad, vigilLoadWithHistory }, options);

    // Where a Vigil save's time goes: the same steps the store runs, timed one by one.
    const sample = snapshotCheckpoint(context(), store.newId(), 'integrate');
    const parts = await timeInterleaved(
      {
        snapshot: () => Promise.resolve(snapshotCheckpoint(context(), 'probe', 'integrate')),
        schemaCheck: () => Promise.resolve(CognitiveCheckpointSchema.safeParse(sample)),
        encode: () => encodeCheckpoint(sample),
        listIds: () => store['allIds'](),
        syncBatch: () =>
          naiveDb.batch([{ type: 'put', key: 'fsync-probe', value: new Uint8Array(64) }], { sync: true }),
        naiveStringify: () => Promise.resolve(JSON.stringify({ checkpoint: sample, messages: history })),
      },
      options,
    );

    const wholeBytes = Buffer.byteLength(JSON.stringify({ checkpoint: sample, messages: history }), 'utf8');
    const checkpointJsonBytes = Buffer.byteLength(JSON.stringify(sample), 'utf8');
    const storedBytes = median(storedSizes);
    const stored = await store.count();
    const loaded = naiveLoaded as WholeDocument | null;
    const restoredCheckpoint = restored as CognitiveCheckpoint | null;
    return {
      id: 'checkpoint-io',
      title: `2. Checkpoint save and load, realistic agent (median of ${options.runs} after ${options.warmup} warm-up, real LevelDB)`,
      checks: [
        ratioCheck(
          'checkpoint-io.save',
          'checkpoint save: vigil / naive',
          { value: ms.vigilSave!, unit: 'ms', what: 'snapshot + store.save' },
          { value: ms.naiveSave!, unit: 'ms', what: 'stringify+gzip+put' },
          '<=',
          0.2,
        ),
        ratioCheck(
          'checkpoint-io.load',
          'checkpoint load: vigil / naive',
          { value: ms.vigilLoad!, unit: 'ms', what: 'loadNewestValid + readAfter' },
          { value: ms.naiveLoad!, unit: 'ms', what: 'get+gunzip+parse' },
          '<=',
          1.0,
        ),
        ratioInfo(
          'checkpoint-io.bytes',
          'bytes stored per checkpoint: vigil / naive',
          { value: storedBytes, unit: 'B', what: 'store sizeBytes' },
          { value: naiveBytes, unit: 'B', what: 'gzipped whole doc' },
        ),
      ],
      details: [
        { label: 'whole document (checkpoint + 1000 messages), JSON', value: wholeBytes / 1024, unit: 'KiB' },
        { label: 'whole document, gzipped (naive bytes per save)', value: naiveBytes / 1024, unit: 'KiB' },
        { label: 'Vigil checkpoint, JSON', value: checkpointJsonBytes / 1024, unit: 'KiB' },
        { label: 'Vigil checkpoint, gzipped (bytes per save)', value: storedBytes / 1024, unit: 'KiB' },
        { label: 'naive save', value: ms.naiveSave!, unit: 'ms' },
        { label: 'Vigil save (snapshotCheckpoint + CheckpointStore.save)', value: ms.vigilSave!, unit: 'ms' },
        { label: 'naive load', value: ms.naiveLoad!, unit: 'ms' },
        { label: 'Vigil load (loadNewestValid + readAfter(watermark))', value: ms.vigilLoad!, unit: 'ms' },
        {
          label: 'Vigil load + whole history (readAfter(0)), for comparison',
          value: ms.vigilLoadWithHistory!,
          unit: 'ms',
        },
        { label: '  save step: snapshotCheckpoint', value: parts.snapshot!, unit: 'ms' },
        { label: '  save step: CognitiveCheckpointSchema.safeParse', value: parts.schemaCheck!, unit: 'ms' },
        { label: '  save step: encodeCheckpoint (stringify + async gzip)', value: parts.encode!, unit: 'ms' },
        { label: '  save step: list stored ids (allIds, for the prune)', value: parts.listIds!, unit: 'ms' },
        { label: '  save step: one tiny sync batch (fsync floor)', value: parts.syncBatch!, unit: 'ms' },
        { label: '  naive step: JSON.stringify(whole document)', value: parts.naiveStringify!, unit: 'ms' },
      ],
      sanity: [
        sanity(
          'the agent is the realistic one',
          agent.messages === REALISTIC.messages &&
            agent.goals === REALISTIC.goals &&
            agent.memoryItems === REALISTIC.memoryItems,
          `${agent.messages} messages, ${agent.goals} goals, ${agent.memoryItems} memory items (capacity ${REALISTIC.wmCapacity})`,
        ),
        sanity(
          'the whole document is about 290 KB',
          wholeBytes > 240_000 && wholeBytes < 340_000,
          `${wholeBytes} bytes`,
        ),
        sanity(
          'the naive load returns everything',
          loaded?.messages.length === REALISTIC.messages &&
            loaded.checkpoint.actors.goals.goals.length === REALISTIC.goals,
          `${loaded?.messages.length} messages, ${loaded?.checkpoint.actors.goals.goals.length} goals`,
        ),
        sanity(
          'the Vigil restore finds the agent and nothing to replay',
          restoredCheckpoint?.actors.goals.goals.length === REALISTIC.goals &&
            restoredCheckpoint.actors.workingMemory.items.length === REALISTIC.memoryItems &&
            restoredCheckpoint.conversation.watermark === agent.watermark &&
            replayed.length === 0,
          `${restoredCheckpoint?.actors.goals.goals.length} goals, ${restoredCheckpoint?.actors.workingMemory.items.length} items, ` +
            `watermark ${restoredCheckpoint?.conversation.watermark}, ${replayed.length} messages after it`,
        ),
        sanity(
          'the store prunes to the max count',
          stored === maxCount,
          `${stored} checkpoints stored, max ${maxCount}`,
        ),
      ],
      notes: [
        'Both saves fsync once; the Vigil save also validates the checkpoint against its schema and lists every stored id to prune.',
      ],
    };
  } finally {
    await naiveDb.close();
    await runtime.stop();
  }
}
