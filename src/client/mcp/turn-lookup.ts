/** `get_reply`'s core: where a turn stands, read from the conversation log (newest pages first). */
import type { ConversationEntry } from '../../protocol/conversation.schema.js';
import type { VigilLink } from './vigil-link.js';

/** What the log says of one turn. */
export type TurnState =
  | { kind: 'answered'; text: string }
  | { kind: 'unanswered'; code: string; reason: string }
  | { kind: 'pending' }
  | { kind: 'unknown' };

const PAGE = 1000;
// A turn a model asks about is recent; five pages back (5,000 entries) bounds the cost of a wrong id.
const MAX_PAGES = 5;

/** Finds `turnId` in the conversation: the agent's entry if it answered, the user's if it is still waiting. */
export async function lookUpTurn(link: VigilLink, turnId: string): Promise<TurnState> {
  let before: number | undefined;
  let asked = false;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const entries: ConversationEntry[] = await link.call('conversation.list', {
      limit: PAGE,
      ...(before === undefined ? {} : { before }),
    });
    for (const entry of entries) {
      if (entry.turnId !== turnId) continue;
      if (entry.role === 'user') asked = true;
      else if (entry.unanswered !== undefined)
        return { kind: 'unanswered', code: entry.unanswered.code, reason: entry.unanswered.reason };
      else return { kind: 'answered', text: entry.text };
    }
    // The user's entry is older than the agent's: once it is seen, no older page can hold the answer.
    if (asked || entries.length < PAGE) break;
    before = entries[0]!.seq;
  }
  return asked ? { kind: 'pending' } : { kind: 'unknown' };
}
