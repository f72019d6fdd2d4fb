/** The facade's `conversation.search`: the conversation's messages best matching a query, within a time window. */
import type { ConversationSearchHit, ConversationSearchParams } from '../../protocol/conversation.schema.js';
import type { ConversationHit } from '../../subsystems/conversation/conversation-search.js';
import { iso, type RuntimeCore } from '../runtime-core.js';

/** Hits `conversation.search` answers with when no limit is given. */
export const DEFAULT_CONVERSATION_SEARCH_LIMIT = 10;

/** `conversation.search`: waits for the conversation's index (built in the background after the boot), best first. */
export async function searchConversation(
  core: RuntimeCore,
  params: ConversationSearchParams,
): Promise<ConversationSearchHit[]> {
  const hits = await core.parts.conversationSearch.search({
    query: params.query,
    limit: params.limit ?? DEFAULT_CONVERSATION_SEARCH_LIMIT,
    window: {
      ...(params.before === undefined ? {} : { before: Date.parse(params.before) }),
      ...(params.after === undefined ? {} : { after: Date.parse(params.after) }),
    },
  });
  return hits.map(conversationSearchHit);
}

/** A hit as the wire carries it: the log's `assistant` is the agent. */
export function conversationSearchHit({ message, score }: ConversationHit): ConversationSearchHit {
  return {
    seq: message.seq,
    role: message.role === 'user' ? 'user' : 'agent',
    ...(message.from === undefined ? {} : { from: message.from }),
    text: message.text,
    at: iso(message.at),
    score,
  };
}
