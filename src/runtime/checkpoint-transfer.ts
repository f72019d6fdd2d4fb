/** Export and import of a checkpoint with its conversation, so an agent can move to another data dir or machine. */
import { VigilError } from '../errors.js';
import { encodeCheckpoint } from '../subsystems/checkpoint/checkpoint.codec.js';
import { summariseIssues } from '../protocol/zod-issues.js';
import type { CognitiveCheckpoint } from '../protocol/checkpoint-format.schema.js';
import type { ConversationMessage } from '../protocol/conversation.schema.js';
import { VIGIL_VERSION } from '../shared/version.js';
import {
  CHECKPOINT_EXPORT_KIND,
  CHECKPOINT_EXPORT_VERSION,
  CheckpointExportSchema,
  type CheckpointExport,
  type ExportedMemory,
  type ImportResult,
} from '../protocol/checkpoint-transfer.schema.js';
import type { Clock } from '../shared/clock.js';
import type { VigilLogger } from '../shared/logger.js';
import type { CheckpointStore } from '../subsystems/checkpoint/checkpoint.store.js';
import type { ConversationLog } from '../subsystems/conversation/conversation-log.js';
import type { SummaryStore } from '../subsystems/summary/summary-store.js';
import type { LongTermMemory } from '../subsystems/memory/long-term-memory.js';

/** The stores export and import work on. */
export interface TransferStores {
  store: CheckpointStore;
  conversation: ConversationLog;
  clock: Clock;
  log: VigilLogger;
  /** The rolling summary's versions: an export carries the one its checkpoint saw, an import stages it. */
  summaries?: SummaryStore;
  /** Long-term memory, carried with the checkpoint (absent: exports carry none, imports keep none). */
  memory?: LongTermMemory;
}

// A restore archives the messages after the restored watermark under `restore-<checkpointId>-<epochMs>`.
const RESTORE_ARCHIVE = /^restore-.+-(\d+)$/;

/**
 * The export document for checkpoint `id`: the decoded checkpoint and its conversation up to the watermark. Messages
 * a later restore archived are found in those archives, so an older checkpoint exports its whole history too.
 */
export async function exportCheckpoint(stores: TransferStores, id: string): Promise<CheckpointExport> {
  const { store, conversation, clock } = stores;
  const checkpoint = await store.load(id);
  const { watermark } = checkpoint.conversation;
  const bySeq = new Map<number, ConversationMessage>();
  for (const message of await conversation.readRange(0, watermark)) bySeq.set(message.seq, message);
  for (const archive of await conversation.listArchives()) {
    // Only archives cut after the checkpoint hold messages of its history; older ones hold a branch it never saw.
    const cutAt = Number(RESTORE_ARCHIVE.exec(archive.archiveId)?.[1] ?? Number.NaN);
    if (!(cutAt >= checkpoint.createdAt) || archive.firstSeq > watermark) continue;
    for (const message of await conversation.readArchive(archive.archiveId)) {
      if (message.seq <= watermark) bySeq.set(message.seq, message);
    }
  }
  const summary = await summaryOf(stores, checkpoint);
  return {
    ...(summary === null ? {} : { summary }),
    kind: CHECKPOINT_EXPORT_KIND,
    version: CHECKPOINT_EXPORT_VERSION,
    exportedAt: new Date(clock.now()).toISOString(),
    runtimeVersion: VIGIL_VERSION,
    checkpoint,
    messages: [...bySeq.values()].sort((a, b) => a.seq - b.seq),
    memories: await exportedMemories(stores.memory, checkpoint),
  };
}

/** The long-term memories checkpoint `checkpoint` knew: those at or below its memory watermark that are still kept. */
async function exportedMemories(
  memory: LongTermMemory | undefined,
  checkpoint: CognitiveCheckpoint,
): Promise<ExportedMemory[]> {
  if (memory === undefined) return [];
  const kept = await memory.upTo(checkpoint.longTermMemory?.watermark ?? 0);
  return kept.map(({ content, source, salience, createdAt, updatedAt }) => ({
    content,
    source,
    salience,
    createdAt,
    updatedAt,
  }));
}

/**
 * Stores an export document here: its messages are appended to this log as new entries (this log may hold its own),
 * and the checkpoint is saved under a fresh id with its watermark moved to the last of them. `checkpoint.restore`
 * of the returned id then runs the exported agent. Nothing is pruned by the import itself.
 */
export async function importCheckpoint(stores: TransferStores, document: unknown): Promise<ImportResult> {
  const parsed = CheckpointExportSchema.safeParse(document);
  if (!parsed.success) {
    throw new VigilError(
      'CHECKPOINT_EXPORT_INVALID',
      `The checkpoint export is invalid: ${summariseIssues(parsed.error)}.`,
      {
        data: parsed.error.issues,
      },
    );
  }
  const { checkpoint, messages, summary } = parsed.data;
  const { store, conversation, log } = stores;
  let watermark = conversation.watermark();
  // The summary's watermark in this log: the new seq of the last message it covers.
  let summaryThroughSeq = 0;
  for (const message of messages) {
    const stored = await conversation.append({
      turnId: message.turnId,
      role: message.role,
      text: message.text,
      at: message.at,
      ...(message.from === undefined ? {} : { from: message.from }),
      ...(message.unanswered === undefined ? {} : { unanswered: message.unanswered }),
    });
    watermark = stored.seq;
    if (summary !== undefined && message.seq <= summary.throughSeq) summaryThroughSeq = stored.seq;
  }
  const memories = parsed.data.memories ?? [];
  if (memories.length > 0 && stores.memory === undefined) {
    throw new VigilError(
      'CHECKPOINT_EXPORT_INVALID',
      'The checkpoint export carries long-term memories, but this runtime has no long-term memory to import them into.',
    );
  }
  for (const m of memories) {
    await stores.memory!.keep({
      content: m.content,
      source: m.source,
      salience: m.salience,
      at: m.updatedAt,
      createdAt: m.createdAt,
    });
  }
  const id = store.newId();
  const { summaryThroughSeq: source, ...carried } = checkpoint.conversation;
  const withSummary = summary !== undefined && summaryThroughSeq > 0 && stores.summaries !== undefined;
  const imported: CognitiveCheckpoint = {
    ...checkpoint,
    id,
    conversation: {
      ...carried,
      watermark,
      ...(source === undefined ? {} : { summaryThroughSeq: withSummary ? summaryThroughSeq : 0 }),
    },
    ...(stores.memory === undefined ? {} : { longTermMemory: { watermark: stores.memory.watermark() } }),
  };
  // Staged, not made current: the running agent keeps its own summary until this checkpoint is restored.
  if (withSummary) await stores.summaries?.stage(id, { ...summary, throughSeq: summaryThroughSeq });
  const bytes = await encodeCheckpoint(imported);
  await store.putRaw(id, bytes, {
    id,
    createdAt: imported.createdAt,
    beatCount: imported.beatCount,
    sizeBytes: bytes.byteLength,
    formatVersion: imported.formatVersion,
  });
  log.info(
    { checkpointId: id, importedFrom: checkpoint.id, messages: messages.length, watermark, memories: memories.length },
    'checkpoint imported',
  );
  return {
    id,
    importedFrom: checkpoint.id,
    beatCount: imported.beatCount,
    messages: messages.length,
    watermark,
    memories: memories.length,
  };
}

/** The summary version checkpoint `checkpoint` saw: staged for it by an import, else the newest covering at most its watermark. */
async function summaryOf(stores: TransferStores, checkpoint: CognitiveCheckpoint) {
  const { summaries } = stores;
  if (summaries === undefined) return null;
  const staged = await summaries.staged(checkpoint.id);
  if (staged !== null) return staged;
  const { summaryThroughSeq, watermark } = checkpoint.conversation;
  if (summaryThroughSeq === undefined) return null;
  return summaries.atOrBefore(Math.min(summaryThroughSeq, watermark));
}
