/**
 * What one message of the conversation is indexed as. A message alone rarely says who said it or when ("Yes, last
 * week!"), while questions about it usually do ("when did Caroline go to the support group?"), so its document holds,
 * beside its text, the speaker's name and the day it was said in words ("Monday 8 May 2023"), and, as context, the
 * message before it (the question a reply answers), each a field of its own so a search weighs them apart
 * (`conversationSearchOptions`); the message after it counts at ranking (`rankConversationHits`). The names of the people in the
 * conversation are left out of what a message says: said inside a message, a participant's name is mostly how they
 * are addressed ("Thanks, Caroline!"), which tells nothing of what the message is about and made a question about
 * Caroline find the other speaker's messages to her; who said a message is its `speaker` field. The recall benchmark
 * (bench/recall.bench.ts, docs/performance.md "Recall on LoCoMo") measured each of these choices.
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
  /** The message's own words, without the participants' names. */
  text: string;
  /** Who said it. */
  speaker: string;
  /** When: the weekday, the day, the month and the year in words, in the index's time zone. */
  date: string;
  /** The message before it, as context (empty for the first one). */
  previous: string;
}

/** What is known around a message when it is indexed. */
export interface ConversationSearchContext {
  /** The message just before it in the conversation. */
  previous?: ConversationSearchMessage | undefined;
  /** The participants' names as lower-cased words (`participantWords`): left out of what the messages say. */
  participants?: ReadonlySet<string> | undefined;
}

/** How the words of a document are made from a message: who the agent is called, and the zone days are counted in. */
export interface ConversationDocumentFormat {
  /** The agent's name, the speaker of its own messages (default "agent"). */
  agentName?: string;
  /** An IANA zone (VIGIL_TIMEZONE); default UTC. */
  timeZone?: string;
  /**
   * The names of the people in the conversation (the user's, the agent's), when known: their words are left out of
   * what the messages say. Only people's names: a client name such as "cli" or "dashboard" is a word messages use.
   */
  participants?: readonly string[];
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

// Days written out, by zone and quarter hour: every zone's offset is a whole number of quarter hours, so a quarter
// hour lies within one day in any zone, and the rebuild of 10,000 messages formats a few hundred days, not 10,000.
const QUARTER_HOUR = 900_000;
const SPOKEN_DATES = 4096;
const spokenDates = new Map<string, string>();

/** Epoch ms → "Monday 8 May 2023" in `timeZone`. */
export function spokenDate(at: number, timeZone = 'UTC'): string {
  const key = `${timeZone} ${Math.floor(at / QUARTER_HOUR)}`;
  let spoken = spokenDates.get(key);
  if (spoken === undefined) {
    if (spokenDates.size >= SPOKEN_DATES) spokenDates.clear();
    spoken = formatDate(at, timeZone);
    spokenDates.set(key, spoken);
  }
  return spoken;
}

function formatDate(at: number, timeZone: string): string {
  const parts = dateFormat(timeZone).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('weekday')} ${part('day')} ${part('month')} ${part('year')}`;
}

/** Who said `message`: the sender's name for a user message, the agent's for its own. */
export function speakerOf(message: ConversationSearchMessage, agentName = 'agent'): string {
  return message.role === 'assistant' ? agentName : (message.from ?? 'user');
}

const WORDS = /(\p{L}+)/u;

/** The lower-cased words of the names of the people in the conversation: the context's `participants`. */
export function participantWords(names: readonly string[] = []): Set<string> {
  return new Set(
    names.flatMap((name) =>
      name
        .split(WORDS)
        .filter((part, i) => i % 2 === 1 && part.length > 1)
        .map((word) => word.toLowerCase()),
    ),
  );
}

/** `text` without the words in `names`. */
function withoutNames(text: string, names: ReadonlySet<string> | undefined): string {
  if (names === undefined || names.size === 0) return text;
  return text
    .split(WORDS)
    .map((part, i) => (i % 2 === 1 && names.has(part.toLowerCase()) ? '' : part))
    .join('');
}

/** The document indexed for `message`, given what is known around it. */
export function conversationSearchDocument(
  message: ConversationSearchMessage,
  context: ConversationSearchContext = {},
  format: ConversationDocumentFormat = {},
): ConversationSearchDocument {
  const said = (other: ConversationSearchMessage | undefined) =>
    other === undefined ? '' : withoutNames(other.text, context.participants);
  return {
    seq: message.seq,
    text: said(message),
    speaker: speakerOf(message, format.agentName),
    date: spokenDate(message.at, format.timeZone),
    previous: said(context.previous),
  };
}
