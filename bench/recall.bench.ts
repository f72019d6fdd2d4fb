/**
 * Bench 15: recall on LoCoMo. Each conversation's turns are indexed as memories through the real memory index
 * (MemoryIndex: the analysis, BM25+ and the prefix and fuzzy matching the runtime uses), each question of categories
 * 1–4 is searched, and recall@1/5/10 (the share of a question's evidence turns among the first k hits) is averaged
 * overall and per category; beside it, in the same run, plain BM25 (MiniSearch with the same words, no prefix or fuzzy)
 * and the candidate improvements: stemming, the speaker and the date as part of what a turn says, neighbouring turns;
 * and the conversation search the runtime uses (ConversationSearchIndex, src/subsystems/conversation/search/), each
 * turn indexed as a message of the conversation log through exactly its API.
 *
 * The conversations are not in the repository (the data's README asks it be used for evaluation only): the bench
 * reads them from $VIGIL_LOCOMO_DIR, by default ../shared/data/locomo beside the repository, and is skipped with a
 * line saying so when they are absent. LoCoMo: Maharana et al., "Evaluating Very Long-Term Conversational Memory of
 * LLM Agents", ACL 2024.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import MiniSearch from 'minisearch';
import { lowerCaseWithoutStopWords, MemoryIndex, type TermProcessor } from '../src/subsystems/memory/memory-index.js';
import {
  conversationSearchDocument,
  participantWords,
  type ConversationSearchDocument,
  type ConversationSearchMessage,
} from '../src/subsystems/conversation/search/conversation-search-document.js';
import { ConversationSearchIndex } from '../src/subsystems/conversation/search/conversation-search-index.js';
import { conversationSearchOptions } from '../src/subsystems/conversation/search/conversation-search-options.js';
import { stemmedWithoutStopWords } from '../src/subsystems/memory/text-analysis.js';
import { median, percentile } from './bench-utils.js';
import { differenceCheck, ratioCheck, ratioInfo, sanity, type BenchOutcome, type Detail } from './report.js';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const DEFAULT_DIR = resolve(REPO_ROOT, '../shared/data/locomo');
const KS = [1, 5, 10] as const;
const CATEGORIES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };

/** One turn of a conversation, with what is known around it. */
export interface Turn {
  diaId: string;
  speaker: string;
  text: string;
  /** "8 May 2023": the day of the turn's session. */
  date: string;
  /** The session's start, epoch ms (LoCoMo gives no time per turn). */
  at: number;
}

interface Question {
  question: string;
  evidence: string[];
  category: number;
}

export interface Conversation {
  /** The two speakers: the first is the user, the second stands for the agent. */
  speakers: [string, string];
  turns: Turn[];
  questions: Question[];
}

/** A way of searching a conversation: built once from its turns, then asked each question. */
export interface Variant {
  name: string;
  build(turns: readonly Turn[], speakers: readonly [string, string]): (query: string, limit: number) => number[];
}

/** "1:56 pm on 8 May, 2023" → "8 May 2023". */
function dayOf(dateTime: string): string {
  return (dateTime.split(' on ')[1] ?? dateTime).replace(',', '');
}

const MONTHS = 'january february march april may june july august september october november december'.split(' ');

/** "1:56 pm on 8 May, 2023" → its epoch ms, read as UTC (NaN when it is not in that form). */
export function sessionTime(dateTime: string): number {
  const match = /(\d+):(\d+)\s*(am|pm) on (\d+) (\w+),? (\d+)/i.exec(dateTime);
  if (match === null) return NaN;
  const [, hour, minute, half, day, month, year] = match as unknown as [string, ...string[]];
  const h = (Number(hour) % 12) + (half!.toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(year), MONTHS.indexOf(month!.toLowerCase()), Number(day), h, Number(minute));
}

/** Reads one conversation file into its turns (in order) and its answerable questions. */
function parseConversation(raw: Record<string, unknown>): Conversation {
  const turns: Turn[] = [];
  for (let n = 1; Array.isArray(raw[`session_${n}`]); n += 1) {
    const dateTime = raw[`session_${n}_date_time`];
    const date = dayOf(typeof dateTime === 'string' ? dateTime : '');
    const at = sessionTime(typeof dateTime === 'string' ? dateTime : '');
    for (const turn of raw[`session_${n}`] as Array<Record<string, unknown>>) {
      const caption = typeof turn['blip_caption'] === 'string' ? ` [shares ${turn['blip_caption']}]` : '';
      turns.push({
        diaId: String(turn['dia_id']),
        speaker: String(turn['speaker']),
        text: `${String(turn['text'])}${caption}`,
        date,
        at,
      });
    }
  }
  const questions = (raw['qa'] as Array<Record<string, unknown>>)
    .map((qa) => ({
      question: String(qa['question']),
      evidence: (qa['evidence'] as unknown[]).map(String),
      category: Number(qa['category']),
    }))
    .filter((qa) => qa.category in CATEGORIES && qa.evidence.length > 0);
  return { speakers: [String(raw['speaker_a']), String(raw['speaker_b'])], turns, questions };
}

/** The conversations in `dir`, or null when there are none (the data is not in the repository, nor in CI). */
export async function loadConversations(dir: string): Promise<Conversation[] | null> {
  const files = await readdir(dir).catch(() => [] as string[]);
  const conversations = files.filter((file) => file.endsWith('.json')).sort();
  if (conversations.length === 0) return null;
  return Promise.all(
    conversations.map(async (file) =>
      parseConversation(JSON.parse(await readFile(join(dir, file), 'utf8')) as Record<string, unknown>),
    ),
  );
}

/** A variant on the real memory index: `content` is what a turn's memory says, `processTerm` the word analysis. */
function memoryIndexVariant(
  name: string,
  content: (turns: readonly Turn[], i: number) => string,
  processTerm?: TermProcessor,
): Variant {
  return {
    name,
    build(turns) {
      const index = new MemoryIndex(processTerm);
      turns.forEach((_, i) => index.add({ seq: i + 1, content: content(turns, i) }));
      return (query, limit) => index.search(query, limit).map((hit) => hit.seq - 1);
    },
  };
}

const textOnly = (turns: readonly Turn[], i: number) => turns[i]!.text;
const withSpeakerAndDate = (turns: readonly Turn[], i: number) =>
  `${turns[i]!.speaker} said on ${turns[i]!.date}: ${turns[i]!.text}`;
/** The turn after the one before it: a reply often names what it answers only in the question it follows. */
const withPrevious = (content: (turns: readonly Turn[], i: number) => string) => (turns: readonly Turn[], i: number) =>
  i === 0 ? content(turns, i) : `${content(turns, i)} ${turns[i - 1]!.text}`;

/** The turns of a conversation as messages of the log: the first speaker's as the user's (`from` their name), the second's as the agent's. */
function messagesOf(turns: readonly Turn[], user: string): ConversationSearchMessage[] {
  return turns.map((turn, i) => ({
    seq: i + 1,
    role: turn.speaker === user ? 'user' : 'assistant',
    from: turn.speaker === user ? user : undefined,
    text: turn.text,
    at: turn.at,
  }));
}

/**
 * The conversation search the runtime uses (ConversationSearchIndex: its documents, options and ranking), each turn
 * added as a message in order, the second speaker named as the agent and both speakers given as the participants.
 */
const conversationSearch: Variant = {
  name: 'conversation search',
  build(turns, [user, agent]) {
    const index = new ConversationSearchIndex({ agentName: agent, participants: [user, agent] });
    index.addAll(messagesOf(turns, user));
    return (query, limit) => index.search(query, { limit }).map((hit) => hit.seq - 1);
  },
};

/** Which of the conversation search's choices a step towards it has (each step adds one to the one before). */
interface Step {
  participantsOut: boolean;
  questionWordsOut: boolean;
}

/**
 * A step towards the conversation search: its documents and options with some of its choices left out, ranked as
 * MiniSearch ranks (no neighbour lift). The last choice, the lift, is the conversation search itself.
 */
function stepVariant(name: string, step: Step): Variant {
  const { boost = {}, ...searchOptions } = conversationSearchOptions.searchOptions ?? {};
  const fields = conversationSearchOptions.fields;
  return {
    name,
    build(turns, [user, agent]) {
      const index = new MiniSearch<ConversationSearchDocument>({
        ...conversationSearchOptions,
        fields,
        searchOptions: {
          ...searchOptions,
          boost: Object.fromEntries(fields.map((field) => [field, boost[field] ?? 1])),
          processTerm: step.questionWordsOut ? searchOptions.processTerm : stemmedWithoutStopWords,
        },
      });
      const messages = messagesOf(turns, user);
      const participants = step.participantsOut ? participantWords([user, agent]) : undefined;
      index.addAll(
        messages.map((message, i) =>
          conversationSearchDocument(message, { previous: messages[i - 1], participants }, { agentName: agent }),
        ),
      );
      return (query, limit) =>
        index
          .search(query)
          .slice(0, limit)
          .map((hit) => (hit.id as number) - 1);
    },
  };
}

/** The baseline: MiniSearch's BM25 over the same words as the memory index, without prefix or fuzzy matching. */
const plainBm25: Variant = {
  name: 'plain BM25',
  build(turns) {
    const index = new MiniSearch<{ id: number; content: string }>({
      fields: ['content'],
      processTerm: lowerCaseWithoutStopWords,
      searchOptions: { combineWith: 'OR', prefix: false, fuzzy: false },
    });
    index.addAll(turns.map((turn, id) => ({ id, content: turn.text })));
    return (query, limit) =>
      index
        .search(query)
        .slice(0, limit)
        .map((hit) => hit.id as number);
  },
};

export const VARIANTS: readonly Variant[] = [
  plainBm25,
  memoryIndexVariant('vigil today', textOnly, lowerCaseWithoutStopWords),
  memoryIndexVariant('+ stemming', textOnly, stemmedWithoutStopWords),
  memoryIndexVariant('+ speaker and date', withSpeakerAndDate, lowerCaseWithoutStopWords),
  memoryIndexVariant('+ previous turn', withPrevious(textOnly), lowerCaseWithoutStopWords),
  memoryIndexVariant('+ stemming, speaker and date', withSpeakerAndDate, stemmedWithoutStopWords),
  memoryIndexVariant(
    '+ stemming, speaker, date, previous turn',
    withPrevious(withSpeakerAndDate),
    stemmedWithoutStopWords,
  ),
  stepVariant('fields: text 1, speaker 4, date 2, previous turn 0.5', {
    participantsOut: false,
    questionWordsOut: false,
  }),
  stepVariant("+ participants' names out of the text", { participantsOut: true, questionWordsOut: false }),
  stepVariant('+ question words out of the query', { participantsOut: true, questionWordsOut: true }),
  conversationSearch,
];

/** Recall@1/5/10 of one variant: overall and per category, each the mean over the questions. */
export interface RecallFigures {
  overall: Record<(typeof KS)[number], number>;
  byCategory: Record<string, Record<(typeof KS)[number], number>>;
  questions: number;
}

/** Searches every question of every conversation with `variant` and averages recall@k. */
export function measureRecall(variant: Variant, conversations: readonly Conversation[]): RecallFigures {
  const sums = new Map<string, { n: number; at: Record<number, number> }>();
  const add = (key: string, at: Record<number, number>) => {
    const sum = sums.get(key) ?? { n: 0, at: { 1: 0, 5: 0, 10: 0 } };
    sum.n += 1;
    for (const k of KS) sum.at[k]! += at[k]!;
    sums.set(key, sum);
  };
  for (const conversation of conversations) {
    const search = variant.build(conversation.turns, conversation.speakers);
    for (const qa of conversation.questions) {
      const hits = search(qa.question, 10).map((i) => conversation.turns[i]!.diaId);
      const at: Record<number, number> = {};
      for (const k of KS) {
        const top = new Set(hits.slice(0, k));
        at[k] = qa.evidence.filter((id) => top.has(id)).length / qa.evidence.length;
      }
      add('overall', at);
      add(CATEGORIES[qa.category]!, at);
    }
  }
  const mean = (key: string) => {
    const sum = sums.get(key) ?? { n: 0, at: { 1: 0, 5: 0, 10: 0 } };
    const of = (k: number) => (sum.n === 0 ? 0 : sum.at[k]! / sum.n);
    return { 1: of(1), 5: of(5), 10: of(10) };
  };
  return {
    overall: mean('overall'),
    byCategory: Object.fromEntries(Object.values(CATEGORIES).map((name) => [name, mean(name)])),
    questions: sums.get('overall')?.n ?? 0,
  };
}

/** The targets: recall@10 over the conversations, and a search's p50 at 10,000 messages. */
export const RECALL_TARGET = 0.75;
export const SEARCH_P50_TARGET_MS = 5;
const COST_MESSAGES = 10_000;

/** What the conversation search costs at 10,000 messages, beside the memory index on the same texts. */
export interface SearchCost {
  messages: number;
  p50Ms: number;
  p99Ms: number;
  /** `memory.search`'s index (MemoryIndex) on the same texts and questions: the same machine's yardstick. */
  memoryIndexP50Ms: number;
  /** The rebuild at boot: `addAll` in chunks of 500, as the runtime reads the log. */
  buildMs: number;
  /** One message written (`add`, which also indexes the one before it again with it as context), mean. */
  appendMs: number;
}

const BUILD_CHUNK = 500;
const APPENDS = 1_000;

/**
 * Indexes 10,000 messages (the conversations' turns one after another, again until there are enough, each a day
 * later than the one before) through ConversationSearchIndex, the last thousand one at a time as they would be
 * written, then asks every question of every conversation.
 */
export function searchCost(conversations: readonly Conversation[], messages = COST_MESSAGES): SearchCost {
  const turns = conversations.flatMap((conversation) => conversation.turns);
  const questions = conversations.flatMap((conversation) => conversation.questions.map((qa) => qa.question));
  const log = Array.from({ length: messages }, (_, i): ConversationSearchMessage => {
    const turn = turns[i % turns.length]!;
    return {
      seq: i + 1,
      role: i % 2 === 0 ? 'user' : 'assistant',
      from: turn.speaker,
      text: turn.text,
      at: (i + 1) * 86_400_000,
    };
  });
  const index = new ConversationSearchIndex({ participants: conversations.flatMap((c) => c.speakers) });
  const started = performance.now();
  for (let i = 0; i < messages - APPENDS; i += BUILD_CHUNK) {
    index.addAll(log.slice(i, Math.min(i + BUILD_CHUNK, messages - APPENDS)));
  }
  const buildMs = performance.now() - started;
  const appending = performance.now();
  for (const message of log.slice(messages - APPENDS)) index.add(message);
  const appendMs = (performance.now() - appending) / APPENDS;
  const timed = (search: (question: string) => unknown) =>
    questions.map((question) => {
      const start = performance.now();
      search(question);
      return performance.now() - start;
    });
  const times = timed((question) => index.search(question, { limit: 10 }));
  const memoryIndex = new MemoryIndex();
  for (const message of log) memoryIndex.add({ seq: message.seq, content: message.text });
  const memoryTimes = timed((question) => memoryIndex.search(question, 10));
  return {
    messages,
    p50Ms: median(times),
    p99Ms: percentile(times, 99),
    memoryIndexP50Ms: median(memoryTimes),
    buildMs: buildMs * (messages / (messages - APPENDS)),
    appendMs,
  };
}

/** Runs bench 15 on the conversations in `dir`. */
export async function recallBench(dir = process.env['VIGIL_LOCOMO_DIR'] ?? DEFAULT_DIR): Promise<BenchOutcome> {
  const title = '15. Recall on LoCoMo (memory.search finding what was said)';
  const conversations = await loadConversations(dir);
  if (conversations === null) {
    const line = `skipped: no LoCoMo conversations in ${dir} (set VIGIL_LOCOMO_DIR to a directory of them)`;
    process.stderr.write(`bench: ${line}\n`);
    return { id: 'recall', title, checks: [], details: [], sanity: [], notes: [line] };
  }
  const figures = VARIANTS.map((variant) => ({ name: variant.name, ...measureRecall(variant, conversations) }));
  const baseline = figures[0]!;
  const today = figures[1]!;
  const search = figures[figures.length - 1]!;
  const cost = searchCost(conversations);
  const details: Detail[] = figures.flatMap((f) => [
    ...KS.map((k) => ({ label: `${f.name}: recall@${k}`, value: f.overall[k], unit: '' })),
    ...Object.entries(f.byCategory).map(([category, at]) => ({
      label: `${f.name}: recall@10 ${category}`,
      value: at[10],
      unit: '',
    })),
  ]);
  const recall = (value: number, what: string) => ({ value, unit: '', what });
  return {
    id: 'recall',
    title: `${title}: ${conversations.length} conversations, ${today.questions} questions`,
    checks: [
      ...figures
        .slice(1)
        .map((f) =>
          ratioInfo(
            `recall.${f.name.replace(/[^a-z]+/g, '-')}`,
            `${f.name}: recall@10 / plain BM25 recall@10`,
            recall(f.overall[10], f.name),
            recall(baseline.overall[10], 'plain BM25'),
          ),
        ),
      differenceCheck(
        'recall.target',
        `the target recall@10 ${RECALL_TARGET} − conversation search recall@10`,
        recall(RECALL_TARGET, 'target'),
        recall(search.overall[10], search.name),
        '<=',
        0,
      ),
      ...Object.entries(today.byCategory).map(([category, at]) =>
        differenceCheck(
          `recall.category.${category}`,
          `${category}: today's recall@10 − conversation search recall@10`,
          recall(at[10], today.name),
          recall(search.byCategory[category]![10], search.name),
          '<=',
          0,
        ),
      ),
      ratioCheck(
        'recall.search-p50',
        `conversation search p50 at ${cost.messages} messages / ${SEARCH_P50_TARGET_MS} ms`,
        { value: cost.p50Ms, unit: 'ms', what: 'search p50' },
        { value: SEARCH_P50_TARGET_MS, unit: 'ms', what: 'target' },
        '<=',
        1,
      ),
    ],
    details: [
      ...details,
      { label: `conversation search at ${cost.messages} messages: p50`, value: cost.p50Ms, unit: 'ms' },
      { label: `conversation search at ${cost.messages} messages: p99`, value: cost.p99Ms, unit: 'ms' },
      {
        label: `memory index (memory.search) at ${cost.messages} messages: p50`,
        value: cost.memoryIndexP50Ms,
        unit: 'ms',
      },
      {
        label: `conversation index rebuild of ${cost.messages} messages (chunks of ${BUILD_CHUNK})`,
        value: cost.buildMs,
        unit: 'ms',
      },
      { label: 'conversation index: one message written', value: cost.appendMs, unit: 'ms' },
    ],
    sanity: [
      sanity(
        'every conversation has turns and questions',
        conversations.every((c) => c.turns.length > 0 && c.questions.length > 0),
        `${conversations.length} conversations`,
      ),
      sanity('the search finds evidence at all', today.overall[10] > 0, `recall@10 ${today.overall[10].toFixed(2)}`),
    ],
    notes: [
      'Each turn is one memory (its text, and the caption of a photo it shares); questions of category 5 (no answer) are left out.',
      `Data: ${dir}. LoCoMo: Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM Agents", ACL 2024.`,
    ],
  };
}

// `node --import tsx bench/recall.bench.ts` runs it alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const outcome = await recallBench();
  console.log(JSON.stringify(outcome, null, 2));
}
