/** Checkpoint migrations: chained steps bring old formats up, too-new formats are refused, gaps are corrupt. */
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint, encodeCheckpoint } from '../../../src/subsystems/checkpoint/checkpoint.codec.js';
import {
  CHECKPOINT_MIGRATIONS,
  createMigrator,
  migrateCheckpoint,
  type Migration,
} from '../../../src/subsystems/checkpoint/checkpoint.migrations.js';
import {
  CHECKPOINT_FORMAT_VERSION,
  CognitiveCheckpointSchema,
} from '../../../src/protocol/checkpoint-format.schema.js';
import { makeCheckpoint } from '../../fixtures/checkpoint.fixture.js';
import { gzipSync } from 'node:zlib';

/** A real format-1 record's parts: no budget actor, no debrief timers. */
function formatOneParts() {
  const { id, createdAt, beatCount, runtimeVersion, actors, heartbeat, conversation } = makeCheckpoint({
    id: 'ck-old',
  });
  const { budget: _budget, ...v1Actors } = actors;
  const { lastDebriefAt: _d, turnStartedAt: _t, turnInProgress: _p, ...v1Conversation } = conversation;
  return { id, createdAt, beatCount, runtimeVersion, actors: v1Actors, heartbeat, conversation: v1Conversation };
}

/** What format 2 makes of `formatOneParts`: an empty budget (rebased on restore) and no turn in progress. */
function expectedFromFormatOne() {
  const cp = makeCheckpoint({ id: 'ck-old' });
  return {
    ...cp,
    actors: {
      ...cp.actors,
      budget: {
        timezone: 'UTC',
        dayKey: '1970-01-01',
        dailyCapMicroUsd: 0,
        topUpMicroUsd: 0,
        spentTodayMicroUsd: 0,
        sessionCostMicroUsd: 0,
        sleeping: false,
        exceeded: false,
        windDownNotified: false,
        wakeRequested: false,
        updatedAt: cp.createdAt,
      },
    },
    conversation: { ...cp.conversation, lastDebriefAt: null, turnStartedAt: null, turnInProgress: false },
  };
}

/** A made-up format 0: snake_case top-level names and the beat counter under `beats`. */
function formatZeroRecord(): Record<string, unknown> {
  const { id, createdAt, beatCount, runtimeVersion, actors, heartbeat, conversation } = formatOneParts();
  return {
    formatVersion: 0,
    checkpoint_id: id,
    timestamp: createdAt,
    beats: beatCount,
    runtime_version: runtimeVersion,
    actors,
    heartbeat,
    conversation,
  };
}

const zeroToOne: Migration = (raw) => {
  const { checkpoint_id, timestamp, beats, runtime_version, ...rest } = raw;
  return { ...rest, id: checkpoint_id, createdAt: timestamp, beatCount: beats, runtimeVersion: runtime_version };
};

describe('createMigrator', () => {
  it('migrates a synthetic format-0 record through every step to the current format, and the result validates', () => {
    const migrate = createMigrator({ 0: zeroToOne, ...CHECKPOINT_MIGRATIONS }, CHECKPOINT_FORMAT_VERSION);
    const migrated = migrate(formatZeroRecord());
    expect(CognitiveCheckpointSchema.parse(migrated)).toEqual(expectedFromFormatOne());
  });

  it('chains several steps in order', () => {
    const seen: number[] = [];
    const step =
      (n: number): Migration =>
      (raw) => {
        seen.push(n);
        return { ...raw, [`step${n}`]: true };
      };
    const migrated = createMigrator({ 0: step(0), 1: step(1), 2: step(2) }, 3)({ formatVersion: 0 });
    expect(seen).toEqual([0, 1, 2]);
    expect(migrated).toEqual({ formatVersion: 3, step0: true, step1: true, step2: true });
  });

  it('leaves a current-format record as it is', () => {
    const cp = makeCheckpoint();
    expect(migrateCheckpoint(cp)).toEqual(cp);
  });

  it('refuses a record newer than the current format with CHECKPOINT_FORMAT_UNSUPPORTED', () => {
    const migrate = createMigrator({ 0: zeroToOne }, 1);
    expect(() => migrate({ formatVersion: 2 })).toThrow(
      expect.objectContaining({ code: 'CHECKPOINT_FORMAT_UNSUPPORTED' }),
    );
  });

  it('reports a missing step as CHECKPOINT_CORRUPT', () => {
    const migrate = createMigrator({ 1: (raw) => raw }, 2);
    expect(() => migrate({ formatVersion: 0 })).toThrow(expect.objectContaining({ code: 'CHECKPOINT_CORRUPT' }));
  });

  it('reports a missing or malformed formatVersion, or a non-object, as CHECKPOINT_CORRUPT', () => {
    const migrate = createMigrator({}, 1);
    for (const raw of [{}, { formatVersion: '1' }, { formatVersion: 1.5 }, null, [], 'text']) {
      expect(() => migrate(raw)).toThrow(expect.objectContaining({ code: 'CHECKPOINT_CORRUPT' }));
    }
  });

  it('reports a throwing step as CHECKPOINT_CORRUPT', () => {
    const migrate = createMigrator(
      {
        0: () => {
          throw new Error('no beats field');
        },
      },
      1,
    );
    expect(() => migrate({ formatVersion: 0 })).toThrow(expect.objectContaining({ code: 'CHECKPOINT_CORRUPT' }));
  });

  it('migrates a real format-1 record to format 2 with an empty budget and no turn in progress', () => {
    expect(CHECKPOINT_FORMAT_VERSION).toBe(2);
    expect(Object.keys(CHECKPOINT_MIGRATIONS)).toEqual(['1']);
    const migrated = migrateCheckpoint({ ...formatOneParts(), formatVersion: 1 });
    expect(CognitiveCheckpointSchema.parse(migrated)).toEqual(expectedFromFormatOne());
  });
});

describe('decodeCheckpoint with a migrator', () => {
  it('decodes a stored format-0 body into a current checkpoint', async () => {
    const bytes = gzipSync(Buffer.from(JSON.stringify(formatZeroRecord())));
    const cp = await decodeCheckpoint(
      bytes,
      createMigrator({ 0: zeroToOne, ...CHECKPOINT_MIGRATIONS }, CHECKPOINT_FORMAT_VERSION),
    );
    expect(cp).toEqual(expectedFromFormatOne());
  });

  it('keeps CHECKPOINT_FORMAT_UNSUPPORTED for a too-new body and CHECKPOINT_CORRUPT for a missing step', async () => {
    const tooNew = await encodeCheckpoint({ ...makeCheckpoint(), formatVersion: 7 as 2 });
    await expect(decodeCheckpoint(tooNew)).rejects.toMatchObject({ code: 'CHECKPOINT_FORMAT_UNSUPPORTED' });
    const old = gzipSync(Buffer.from(JSON.stringify(formatZeroRecord())));
    await expect(decodeCheckpoint(old)).rejects.toMatchObject({ code: 'CHECKPOINT_CORRUPT' });
  });
});
