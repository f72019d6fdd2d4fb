/** Reads a stopped daemon's data dir straight from LevelDB: every checkpoint (index and bodies), whether each decodes, and the ledger. */
import { Level } from 'level';
import { dayKeyIn } from '../../src/actors/budget/budget-calendar.js';
import { describeError } from '../../src/errors.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { BudgetLedger } from '../../src/subsystems/budget/budget-ledger.js';
import { CheckpointStore } from '../../src/subsystems/checkpoint/checkpoint.store.js';
import { ConversationLog } from '../../src/subsystems/conversation/conversation-log.js';
import type { ConversationMessage } from '../../src/protocol/conversation.schema.js';
import { SUBLEVELS, vigilDbLocation, type VigilDb } from '../../src/subsystems/store/vigil-db.js';

/** What a data dir holds, as far as CONTRACT §6 cares. */
export interface DataDirReport {
  /** Index entries, newest first. */
  indexIds: string[];
  /** Stored bodies, newest first. */
  bodyIds: string[];
  /** Checkpoints that do not load, with the reason. */
  undecodable: Array<{ id: string; reason: string }>;
  /** Beat count of each checkpoint that loads, by id. */
  beatCounts: Record<string, number>;
  /** The ledger's spend for today's UTC date, in micro-dollars. */
  spentTodayMicroUsd: number;
  /** The live conversation log, oldest first. */
  messages: ConversationMessage[];
}

/** Opens `<dataDir>/db` (the daemon must be stopped), runs `fn` on it and closes it. */
export async function withDataDirDb<T>(dataDir: string, fn: (db: VigilDb) => Promise<T>): Promise<T> {
  const db = new Level(vigilDbLocation(dataDir)) as unknown as VigilDb;
  await db.open();
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** Inspects every checkpoint in `dataDir` and today's ledger entry. */
export function inspectDataDir(dataDir: string, now = Date.now()): Promise<DataDirReport> {
  return withDataDirDb(dataDir, async (db) => {
    const store = new CheckpointStore(db, createSimulatedClock(now));
    await store.open();
    const index = db.sublevel<string, unknown>(SUBLEVELS.checkpointIndex, { valueEncoding: 'json' });
    const bodies = db.sublevel<string, Uint8Array>(SUBLEVELS.checkpointBodies, { valueEncoding: 'view' });
    const indexIds = await index.keys({ reverse: true }).all();
    const bodyIds = await bodies.keys({ reverse: true }).all();
    const undecodable: DataDirReport['undecodable'] = [];
    const beatCounts: Record<string, number> = {};
    for (const id of new Set([...indexIds, ...bodyIds])) {
      try {
        beatCounts[id] = (await store.load(id)).beatCount;
      } catch (err) {
        undecodable.push({ id, reason: describeError(err) });
      }
    }
    const day = await new BudgetLedger(db).readDay(dayKeyIn('UTC', now));
    const conversation = new ConversationLog(db);
    await conversation.open();
    const messages = await conversation.readAfter(0);
    return { indexIds, bodyIds, undecodable, beatCounts, spentTodayMicroUsd: day.spentMicroUsd, messages };
  });
}
