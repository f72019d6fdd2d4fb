/**
 * The simulated year's heap figures. Two questions, measured apart: does a runtime hold more at a year than the same
 * memories without the year (`runtimeHeap`, on the aged dir and on its twin), and does the process that hosted the
 * year's incarnations keep what they left (`heapAfterGc` sampled each week; what long-term memory and the
 * conversation's search index hold for the data they serve, `longTermMemoryBytes` and `conversationIndexBytes`, set
 * apart).
 */
import type { VigilConfig } from '../../src/config.js';
import { ConversationIndex } from '../../src/subsystems/conversation/conversation-index.js';
import { ConversationLog } from '../../src/subsystems/conversation/conversation-log.js';
import { LongTermMemory } from '../../src/subsystems/memory/long-term-memory.js';
import { openVigilDb } from '../../src/subsystems/store/vigil-db.js';
import { words } from './sim-model.js';
import { YearWorld } from './sim-year-world.js';

/** Messages a runtime answers before its heap is read: its windows (conversation, journal, traces) are in use. */
const HEAP_PROBE_MESSAGES = 50;
const MESSAGE_GAP_MS = 10 * 60_000;

/** The heap after full collections. */
export function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  // Twice: a first collection may leave what finalizers and weak references release for the second.
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

/**
 * The heap a runtime booted on `dir` holds (after GC, beyond what the process held before it booted) once it has
 * searched its memory and answered HEAP_PROBE_MESSAGES messages; the same seed sends the same messages to any dir.
 */
export async function runtimeHeap(
  dir: string,
  at: number,
  seed: number,
  overrides: Partial<VigilConfig> = {},
): Promise<number> {
  const before = heapAfterGc();
  const world = new YearWorld(dir, at, seed, overrides);
  await world.boot();
  await world.runtime.searchMemory({ query: words(world.rng, 2), limit: 5 });
  for (let i = 0; i < HEAP_PROBE_MESSAGES; i += 1) {
    world.send(words(world.rng, world.rng.int(3, 60)));
    await world.runUntil(world.world.now() + MESSAGE_GAP_MS);
  }
  const held = heapAfterGc() - before;
  await world.stop();
  return held;
}

/**
 * The heap long-term memory holds for the memories of data dir `dir` (not open elsewhere) once its index is built:
 * their records, content hashes and search index, as a runtime holds them.
 */
export async function longTermMemoryBytes(dir: string): Promise<number> {
  const db = await openVigilDb(dir);
  try {
    const before = heapAfterGc();
    const memory = new LongTermMemory(db);
    await memory.open();
    await memory.whenReady();
    const held = heapAfterGc() - before;
    await memory.stop();
    return held;
  } finally {
    await db.close();
  }
}

/**
 * The heap the conversation's search index holds for the live conversation of data dir `dir` (not open elsewhere),
 * built as a runtime builds it: it grows with the messages retention keeps, up to the window, like long-term memory
 * with its memories.
 */
export async function conversationIndexBytes(dir: string): Promise<number> {
  const db = await openVigilDb(dir);
  try {
    const log = new ConversationLog(db);
    await log.open();
    const before = heapAfterGc();
    const index = new ConversationIndex(log);
    index.open();
    await index.whenBuilt();
    const held = heapAfterGc() - before;
    await index.stop();
    return held;
  } finally {
    await db.close();
  }
}
