/**
 * What one message of the conversation is indexed as. A message alone rarely says who said it or when ("Yes, last
 * week!"), while questions about it usually do ("when did Caroline go to the support group?"), so its document holds,
 * beside its text, the speaker's name and the day it was said (written out: "8 May 2023", "May 2023", the weekday),
 * and the text of the message before it (the question a reply answers), each a field of its own so a search can weigh
 * them apart. The recall benchmark (bench/recall.bench.ts) measured each of these choices.
 */

/** A message as the conversation search needs it: a subset of the conversation log's record. */
export interface ConversationSearchMessage {
  /** The log's seq: the id of the message in the index. */
  seq: number;
  role: 'user' | 'assistant';
  /** Who sent a user message (a client or channel name, or a person's name). */
  from?: string | undefined;
  text: string;
  /** Epoch ms. */
  at: number;
}

/** The fields of a message's document, each searched with its own weight (`conversationSearchOptions`). */
export interface ConversationSearchDocument {
  seq: number;
  /** The message's own words. */
  text: string;
  /** Who said it. */
  speaker: string;
  /** When: the day, the month and the weekday in words, in the index's time zone. */
  date: string;
  /** The message before it, as context (empty for the first one). */
  previous: string;
}

/** How the words of a document are made from a message: who the agent is called, and the zone days are counted in. */
export interface ConversationDocumentFormat {
  /** The agent's name, the speaker of its own messages (default "agent"). */
  agentName?: string;
  /** An IANA zone (VIGIL_TIMEZONE); default UTC. */
  timeZone?: string;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** A formatter per zone, made once: building one costs far more than using it. */
function dateFormat(timeZone: string): Intl.DateTimeFormat {
  let format = dateFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      weekday: 'long',
      day: 'numeric',
      month: 'long',
      year: 'numeric',
    });
    dateFormats.set(timeZone, format);
  }
  return format;
}

/** Epoch ms → "Monday 8 May 2023" in `timeZone`. */
export function spokenDate(at: number, timeZone = 'UTC'): string {
  const parts = dateFormat(timeZone).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('weekday')} ${part('day')} ${part('month')} ${part('year')}`;
}

/** Who said `message`: the sender's name for a user message, the agent's for its own. */
export function speakerOf(message: ConversationSearchMessage, agentName = 'agent'): string {
  return message.role === 'assistant' ? agentName : (message.from ?? 'user');
}

/** The document indexed for `message`, given the message before it in the conversation (if any). */
export function conversationSearchDocument(
  message: ConversationSearchMessage,
  previous: ConversationSearchMessage | undefined,
  format: ConversationDocumentFormat = {},
): ConversationSearchDocument {
  return {
    seq: message.seq,
    text: message.text,
    speaker: speakerOf(message, format.agentName),
    date: spokenDate(message.at, format.timeZone),
    previous: previous?.text ?? '',
  };
}
