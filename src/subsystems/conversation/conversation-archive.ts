/** Restore archives of the conversation log: their keys, their summaries, and the batch that moves entries into one. */
import { VigilError } from '../../errors.js';
import type { ConversationArchive, ConversationMessage } from '../../protocol/conversation.schema.js';
import type { VigilBatchOp } from '../store/vigil-db.js';

// Archive entries are keyed `<archiveId>!<seq>`; '!' sorts before every character an archive id may hold.
const ARCHIVE_SEPARATOR = '!';
const ARCHIVE_ID_PATTERN = /^[\x22-\x7e]+$/;

/** An archive is written with another's sync batch (a restore's checkpoint): what to write, and what it will do. */
export interface ArchiveBatch {
  /** The operations: entries moved, entries appended, the archive's summary, the highest seq issued. */
  ops: VigilBatchOp[];
  /** The live entries this batch moves under the archive, ascending. */
  moved: ConversationMessage[];
  /** The entries it appends, numbered above every seq issued. */
  appended: ConversationMessage[];
  /** The log's watermark once the batch is written (a checkpoint written with it stores this). */
  watermarkAfter: number;
  /** Call once the batch is durable: the log then reads as the batch left it. */
  committed(): void;
  /** Call instead when the batch will not be written (the write carrying it failed). */
  abandoned(): void;
}

/** What an archive plans before anyone writes it. */
export interface ArchivePlan {
  ops: VigilBatchOp[];
  moved: ConversationMessage[];
  appended: ConversationMessage[];
  /** The last live seq once written. */
  lastLiveAfter: number;
}

/** INTERNAL unless `archiveId` is printable ASCII without spaces or '!'. */
export function assertArchiveId(archiveId: string): void {
  if (!ARCHIVE_ID_PATTERN.test(archiveId)) {
    throw new VigilError(
      'INTERNAL',
      `The archive id ${JSON.stringify(archiveId)} must be printable ASCII without spaces or '!'.`,
    );
  }
}

/** The key of one archived entry, from its log key. */
export function archiveKey(archiveId: string, seqKey: string): string {
  return `${archiveId}${ARCHIVE_SEPARATOR}${seqKey}`;
}

/** The key range holding every entry of archive `archiveId`. */
export function archiveRange(archiveId: string): { gt: string; lt: string } {
  return {
    gt: archiveId + ARCHIVE_SEPARATOR,
    lt: archiveId + String.fromCharCode(ARCHIVE_SEPARATOR.charCodeAt(0) + 1),
  };
}

/** An archive's summary once `messages` (moved after `afterSeq`) are added to what it held. */
export function mergeArchiveSummary(
  previous: ConversationArchive | undefined,
  archiveId: string,
  afterSeq: number,
  messages: readonly ConversationMessage[],
): ConversationArchive {
  const seqs = messages.map((m) => m.seq);
  const firstSeq = Math.min(...seqs, previous?.firstSeq ?? Infinity);
  const lastSeq = Math.max(...seqs, previous?.lastSeq ?? 0);
  const count = messages.length + (previous?.count ?? 0);
  return { archiveId, afterSeq: Math.min(afterSeq, previous?.afterSeq ?? Infinity), count, firstSeq, lastSeq };
}
