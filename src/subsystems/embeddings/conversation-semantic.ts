/**
 * Semantic search over the conversation: its semantic index follows the log (a message embedded once written, its
 * vector dropped once retention or a restore takes it out of the live log), is filled with what the log held at boot
 * once the lexical index is built, and ranks the conversation's searches fused with the lexical ranking. A message's
 * vector is deleted after the batch that removes it, not in it (the log's retention owns that batch): one left by a
 * crash in between is deleted at the next start.
 */
import type { ConversationLog } from '../conversation/conversation-log.js';
import type { ConversationIndex } from '../conversation/conversation-index.js';
import type { ConversationSearch } from '../conversation/conversation-search.js';
import type { VigilLogger } from '../../shared/logger.js';
import { hybridRanking } from './hybrid-search.js';
import type { SemanticIndex } from './semantic-index.js';

// Messages read per step while telling the index what the log held at boot.
const READ_CHUNK = 500;

/** What the conversation's semantic search is made of. */
export interface ConversationSemanticDeps {
  log: ConversationLog;
  index: ConversationIndex;
  search: ConversationSearch;
  semantic: SemanticIndex;
  logger: VigilLogger;
}

/**
 * Wires `semantic` to the conversation: follows the log, loads after the lexical build, ranks the searches fused.
 * Resolves once the vectors are loaded and every message the log held is known to the filler (never rejects).
 */
export function followConversationSemantic({
  log,
  index,
  search,
  semantic,
  logger,
}: ConversationSemanticDeps): Promise<void> {
  log.onAppend((message) => semantic.want(message.seq, message.text));
  log.onRemove((seqs) => {
    semantic.removeNow(seqs).catch((err: unknown) => {
      logger.warn({ err, count: seqs.length }, 'vectors of pruned messages not deleted; they go at the next start');
    });
  });
  search.useRanker({
    rank: (query, limit, window) =>
      hybridRanking(
        query,
        limit,
        (depth) => index.rank(query, depth, window),
        semantic,
        (seq) => index.within(seq, window),
      ),
  });
  return index
    .whenBuilt()
    .then(async () => {
      for (let after = 0; ;) {
        const chunk = await log.readAfter(after, READ_CHUNK);
        if (chunk.length === 0) break;
        for (const message of chunk) if (index.has(message.seq)) semantic.want(message.seq, message.text);
        after = (chunk[chunk.length - 1] as { seq: number }).seq;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      await semantic.load((seq) => index.has(seq));
    })
    .catch((err: unknown) => {
      logger.error({ err }, 'the conversation could not be read for its vectors; its search stays lexical');
    });
}
