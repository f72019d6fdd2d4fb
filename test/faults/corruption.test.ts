/**
 * Corruption one level above the store contract: a real runtime (createRuntime on on-disk LevelDB) booting from a
 * data dir whose checkpoints were damaged, and `vigil run` on a data dir whose LevelDB files were damaged.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDaemon } from '../../src/daemon.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { CHECKPOINT_FORMAT_VERSION } from '../../src/protocol/checkpoint-format.schema.js';
import { CheckpointStore } from '../../src/subsystems/checkpoint/checkpoint.store.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { SUBLEVELS, openVigilDb, type VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from '../e2e/daemon-process.js';
import { SESSION_CONFIG, runSession, type SessionResult } from './agent-session.js';
import { LEVELDB_DAMAGES } from './leveldb-damage.js';
import { LEVELS, recordingLogger } from './recording-logger.js';

const START = Date.parse('2026-03-01T10:00:00Z');
const dirs: string[] = [];

async function tempDir(label: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `vigil-corruption-${label}-`));
  dirs.push(dir);
  return dir;
}

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const bodiesOf = (db: VigilDb) =>
  db.sublevel<string, Uint8Array>(SUBLEVELS.checkpointBodies, { valueEncoding: 'view' });
const indexOf = (db: VigilDb) => db.sublevel<string, unknown>(SUBLEVELS.checkpointIndex, { valueEncoding: 'json' });
const rawIndexOf = (db: VigilDb) => db.sublevel<string, string>(SUBLEVELS.checkpointIndex, { valueEncoding: 'utf8' });

/** The stored checkpoint `id` decoded (the store is the oracle for what a valid one looks like). */
async function loadStored(db: VigilDb, id: string) {
  const store = new CheckpointStore(db, createSimulatedClock(START));
  await store.open();
  return store.load(id);
}

/** One corruption of the stored checkpoints: it damages some, and says which are reported and which one is restored. */
interface CheckpointDamage {
  kind: string;
  /** Damages `db`, whose checkpoints are given oldest first; returns the ids that must be reported corrupt, newest first. */
  apply: (db: VigilDb, ids: string[]) => Promise<string[]>;
  reason: RegExp;
  /** Index (into the oldest-first ids) of the checkpoint the runtime must restore; null for a cold start. */
  restores: (ids: string[]) => number | null;
}

const newestIndex = (ids: string[]): number => ids.length - 1;
const nextOlder = (ids: string[]): number => ids.length - 2;

const CHECKPOINT_DAMAGES: CheckpointDamage[] = [
  {
    kind: 'a truncated body',
    reason: /failed to decompress/,
    restores: nextOlder,
    apply: async (db, ids) => {
      const id = ids.at(-1)!;
      const bytes = (await bodiesOf(db).get(id))!;
      await bodiesOf(db).put(id, bytes.slice(0, Math.floor(bytes.length / 2)));
      return [id];
    },
  },
  {
    kind: 'a bit-flipped body',
    reason: /failed to decompress/,
    restores: nextOlder,
    apply: async (db, ids) => {
      const id = ids.at(-1)!;
      const bytes = Uint8Array.from((await bodiesOf(db).get(id))!);
      const at = Math.floor(bytes.length / 2);
      bytes[at] = bytes[at]! ^ 0x04;
      await bodiesOf(db).put(id, bytes);
      return [id];
    },
  },
  {
    kind: 'a record that fails the schema',
    reason: /does not match the checkpoint schema.*actors\.goals/,
    restores: nextOlder,
    apply: async (db, ids) => {
      const id = ids.at(-1)!;
      const stored = await loadStored(db, id);
      await bodiesOf(db).put(
        id,
        gzipSync(JSON.stringify({ ...stored, actors: { ...stored.actors, goals: 'all of them' } })),
      );
      return [id];
    },
  },
  {
    kind: 'a checkpoint from a newer format version',
    reason: new RegExp(`format ${CHECKPOINT_FORMAT_VERSION + 1}, newer than format ${CHECKPOINT_FORMAT_VERSION}`),
    restores: nextOlder,
    apply: async (db, ids) => {
      const id = ids.at(-1)!;
      const stored = await loadStored(db, id);
      await bodiesOf(db).put(id, gzipSync(JSON.stringify({ ...stored, formatVersion: CHECKPOINT_FORMAT_VERSION + 1 })));
      return [id];
    },
  },
  {
    kind: 'a missing index entry',
    reason: /has a body but no index entry/,
    restores: nextOlder,
    apply: async (db, ids) => {
      await indexOf(db).del(ids.at(-1)!);
      return [ids.at(-1)!];
    },
  },
  {
    kind: 'a missing body',
    reason: /has an index entry but no body/,
    restores: nextOlder,
    apply: async (db, ids) => {
      await bodiesOf(db).del(ids.at(-1)!);
      return [ids.at(-1)!];
    },
  },
  {
    kind: 'an orphan body newer than every checkpoint',
    reason: /has a body but no index entry/,
    restores: newestIndex,
    apply: async (db, ids) => {
      // What a save torn between its two writes would leave, were it not one batch.
      const orphan = `${ids.at(-1)!}-orphan`;
      await bodiesOf(db).put(orphan, new Uint8Array([0x1f, 0x8b, 0x08, 0x00]));
      return [orphan];
    },
  },
  {
    kind: 'an index entry that is not JSON',
    reason: /could not be read|invalid index entry/,
    restores: nextOlder,
    apply: async (db, ids) => {
      await rawIndexOf(db).put(ids.at(-1)!, '{"id": "ck-');
      return [ids.at(-1)!];
    },
  },
  {
    kind: "another checkpoint's body",
    reason: /holds the body of checkpoint/,
    restores: nextOlder,
    apply: async (db, ids) => {
      await bodiesOf(db).put(ids.at(-1)!, (await bodiesOf(db).get(ids[0]!))!);
      return [ids.at(-1)!];
    },
  },
  {
    kind: 'the three newest, each a different way',
    reason: /failed to decompress|no index entry|no body/,
    restores: (ids) => ids.length - 4,
    apply: async (db, ids) => {
      const [third, second, first] = ids.slice(-3) as [string, string, string];
      await bodiesOf(db).put(first, new Uint8Array([1, 2, 3]));
      await indexOf(db).del(second);
      await bodiesOf(db).del(third);
      return [first, second, third];
    },
  },
];

describe('a runtime booting from damaged checkpoints (createRuntime on on-disk LevelDB)', () => {
  let template: string;
  let session: SessionResult;
  let ids: string[];

  beforeAll(async () => {
    template = await tempDir('template');
    // 30 beats: a checkpoint every 5 plus the final one at stop; the due goal makes it think (and pay) every beat.
    session = await runSession({
      dataDir: template,
      startMs: START,
      beats: 30,
      goals: ['Chart the reef'],
      message: 'Remember the tide.',
    });
    ids = session.checkpoints.map((c) => c.id);
    expect(ids.length).toBeGreaterThanOrEqual(5);
    expect(session.spentTodayUsd).toBeGreaterThan(0);
  });

  /** Copies the template, damages it with `damage`, and boots a runtime on it (not started). */
  async function bootDamaged(damage: (db: VigilDb) => Promise<string[]>) {
    const dataDir = await tempDir('case');
    await cp(template, dataDir, { recursive: true });
    const db = await openVigilDb(dataDir);
    const reported = await damage(db);
    const { log, records } = recordingLogger();
    // The same simulated day as the session: the ledger's spend counts for "today".
    const clock = createSimulatedClock(START + 3_600_000);
    const runtime = await createRuntime({ db, clock, logger: log, config: SESSION_CONFIG });
    const corruptEvents = (await runtime.history({ types: ['checkpoint.corrupt'] })) as Array<
      Extract<VigilEvent, { type: 'checkpoint.corrupt' }>
    >;
    // Started at once: the simulated clock has not moved, so no beat runs before the assertions.
    runtime.start();
    const close = async (): Promise<void> => {
      await runtime.stop();
      await db.close();
    };
    return { runtime, clock, records, reported, corruptEvents, close };
  }

  /** Asks for a checkpoint and beats until it is stored: the store takes good checkpoints again. */
  async function checkpointAfterBoot(
    runtime: Runtime,
    clock: ReturnType<typeof createSimulatedClock>,
  ): Promise<string> {
    const created = runtime.createCheckpoint();
    clock.increment(1000);
    const { id } = await created;
    const [newest] = await runtime.listCheckpoints({ limit: 1 });
    expect(newest?.id).toBe(id);
    return id;
  }

  for (const damage of CHECKPOINT_DAMAGES) {
    it(`skips ${damage.kind} with checkpoint.corrupt (evented and logged at warn) and restores the next valid one`, async () => {
      const { runtime, clock, records, reported, corruptEvents, close } = await bootDamaged((db) =>
        damage.apply(db, ids),
      );
      try {
        const expected = session.checkpoints[damage.restores(ids)!]!;
        expect(runtime.status()).toMatchObject({ restoredFrom: expected.id, beatCount: expected.beatCount });
        expect(runtime.listGoals().map((g) => g.title)).toEqual(session.goalTitles);

        expect(corruptEvents.map((e) => e.checkpointId)).toEqual(reported);
        for (const event of corruptEvents) expect(event.reason).toMatch(damage.reason);
        const warned = records.filter((r) => r.msg === 'checkpoint.corrupt');
        expect(warned.map((r) => [r.level, r['type'], r['checkpointId']])).toEqual(
          reported.map((id) => [LEVELS.warn, 'checkpoint.corrupt', id]),
        );

        // The listing still works around the damage, and the next checkpoint is newer than anything stored.
        const listed = (await runtime.listCheckpoints()).map((c) => c.id);
        expect(listed).toContain(expected.id);
        const fresh = await checkpointAfterBoot(runtime, clock);
        for (const id of reported) expect(fresh > id).toBe(true);
      } finally {
        await close();
      }
    });
  }

  it('cold-starts when no checkpoint is valid, reporting each one, with the money spent today still counted', async () => {
    const { runtime, clock, records, reported, corruptEvents, close } = await bootDamaged(async (db) => {
      for (const id of ids) await bodiesOf(db).put(id, new TextEncoder().encode('not a checkpoint'));
      return [...ids].reverse();
    });
    try {
      expect(runtime.status()).toMatchObject({ restoredFrom: null, beatCount: 0 });
      expect(runtime.listGoals()).toEqual([]);
      expect(corruptEvents.map((e) => e.checkpointId)).toEqual(reported);
      expect(records.filter((r) => r.msg === 'checkpoint.corrupt' && r.level === LEVELS.warn)).toHaveLength(ids.length);
      // The ledger, not the checkpoint, holds the day's spend: a store with nothing valid gives no money back.
      expect(runtime.budgetStatus().spentTodayUsd).toBe(session.spentTodayUsd);
      await checkpointAfterBoot(runtime, clock);
    } finally {
      await close();
    }
  });
});

describe('vigil run on a damaged LevelDB directory', () => {
  let template: string;
  let newest: { id: string; beatCount: number };
  let goalTitles: string[];
  const started: DaemonProcess[] = [];

  beforeAll(async () => {
    template = await tempDir('ldb-template');
    // Two sessions: the first one's clean stop compacts what it wrote into table files; the second runs on a database
    // the test holds (a runtime compacts only a database it opened itself), so its writes stay in the log, as a
    // `kill -9` would leave them. Losing the oldest table loses the first session, never the newest checkpoint.
    const now = Date.now();
    await runSession({
      dataDir: template,
      startMs: now - 600_000,
      beats: 30,
      goals: ['Sweep the deck'],
      message: 'Hello, keeper.',
    });
    const held = await openVigilDb(template);
    const second = await runSession({
      db: held,
      startMs: now - 300_000,
      beats: 12,
      goals: ['Polish the brass'],
    }).finally(() => held.close());
    newest = second.checkpoints.at(-1)!;
    goalTitles = second.goalTitles;
  });

  afterAll(() => {
    for (const daemon of started) daemon.kill('SIGKILL');
  });

  for (const damage of LEVELDB_DAMAGES) {
    it(`refuses ${damage.kind} with exit 1 naming the data dir and --repair; --repair recovers and runs`, async () => {
      const dataDir = await tempDir('ldb-case');
      await cp(template, dataDir, { recursive: true });
      await damage.apply(dataDir);

      const stderr: string[] = [];
      const code = await runDaemon(['--data-dir', dataDir, '--port', '0'], {
        env: { VIGIL_LOG_LEVEL: 'silent' },
        stderr: (l) => stderr.push(l),
      });
      expect(code).toBe(1);
      expect(stderr.join('\n')).toContain(`data dir ${dataDir}`);
      expect(stderr.join('\n')).toContain(`vigil run --repair --data-dir ${dataDir}`);

      const daemon = startDaemon(['run', '--repair', '--data-dir', dataDir, '--port', '0'], FAST_ENV);
      started.push(daemon);
      const repaired = await daemon.waitFor((l) => l.msg === 'store repaired', 20_000, '"store repaired"');
      expect(repaired).toMatchObject({ dataDir });
      expect(repaired['checkpoints']).toBeGreaterThanOrEqual(1);
      expect(repaired['keys']).toMatchObject({ 'checkpoint-index': repaired['checkpoints'] });
      const boot = await daemon.waitFor((l) => l.msg === 'runtime started', 20_000, '"runtime started"');
      expect(boot).toMatchObject({ restoredFrom: newest.id, beatCount: newest.beatCount, goals: goalTitles.length });
      await daemon.waitFor((l) => l.msg === 'gateway listening', 20_000, '"gateway listening"');
      daemon.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
    });
  }

  it('maps a damaged directory to STORE_CORRUPT with the data dir and the repair command in data', async () => {
    const dataDir = await tempDir('ldb-code');
    await cp(template, dataDir, { recursive: true });
    await LEVELDB_DAMAGES.find((d) => d.kind === 'a deleted table file')!.apply(dataDir);
    await expect(openVigilDb(dataDir)).rejects.toMatchObject({
      code: 'STORE_CORRUPT',
      data: { dataDir, repair: `vigil run --repair --data-dir ${dataDir}` },
    });
  });

  it('refuses --repair while another daemon holds the data dir, touching nothing', async () => {
    const dataDir = await tempDir('ldb-locked');
    await cp(template, dataDir, { recursive: true });
    const held = await openVigilDb(dataDir);
    try {
      const stderr: string[] = [];
      const code = await runDaemon(['--repair', '--data-dir', dataDir, '--port', '0'], {
        env: { VIGIL_LOG_LEVEL: 'silent' },
        stderr: (l) => stderr.push(l),
      });
      expect(code).toBe(1);
      expect(stderr.join('\n')).toMatch(/in use by another Vigil daemon; stop it before repairing/);
      const store = new CheckpointStore(held, createSimulatedClock(Date.now()));
      await store.open();
      expect((await store.list({ limit: 1 }))[0]?.id).toBe(newest.id);
    } finally {
      await held.close();
    }
  });
});
