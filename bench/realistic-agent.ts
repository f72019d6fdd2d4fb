/** The bench fixture: an agent with a realistic history (1000 messages, 50 goals, a full working memory), built through the real runtime. */
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import type { VigilConfig } from '../src/config.js';
import { createRuntime } from '../src/runtime/create-runtime.js';
import type { Runtime } from '../src/runtime/runtime.js';
import { createSimulatedClock, type Clock } from '../src/shared/clock.js';
import { CountingThinker } from './counting-thinker.js';
import { internalsOf } from './bench-utils.js';

/** The shape of the realistic agent. */
export const REALISTIC = { messages: 1000, messageChars: 150, goals: 50, memoryItems: 7, wmCapacity: 7 } as const;

// The interval stored in the fixture's checkpoint: the short beat of bench 3, so a restored runtime's first beat
// does not wait a default 1 s interval first.
const FIXTURE_BEAT_MS = 10;

// A made-up vocabulary of 2000 words with a skewed (Zipf-like) choice, so the text compresses about as well as
// real chat does (gzip ~3-4× on the JSON) rather than the 6× or more of a small repeated word list.
const SYLLABLES =
  'ka ri to mes an de lo vi su tra pen gor el un si ba qu ne os fa li mo ter ca di pro sta ver ul ny ex ho wa ze bi ru cho ad im'.split(
    ' ',
  );
const VOCABULARY = makeVocabulary(2000);

function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function makeVocabulary(size: number): string[] {
  const random = lcg(12345);
  return Array.from({ length: size }, () => {
    let word = '';
    for (let n = 1 + Math.floor(random() * 3); n > 0; n -= 1)
      word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    return word;
  });
}

/** Deterministic prose of exactly `chars` characters, different for each `seed`. */
export function prose(seed: number, chars: number): string {
  const random = lcg(Math.imul(seed + 1, 2654435761));
  let text = '';
  while (text.length < chars) {
    const r = random();
    text += (text === '' ? '' : ' ') + VOCABULARY[Math.floor(VOCABULARY.length * r * r * r)];
  }
  return `${text.slice(0, chars - 1)}.`;
}

/** What the fixture holds after `populate`. */
export interface RealisticAgentSummary {
  messages: number;
  goals: number;
  memoryItems: number;
  watermark: number;
}

/**
 * Fills a started runtime: 1000 alternating user/assistant messages appended to its own conversation log, 50 goals
 * via `addGoal` (none due, so beats stay idle), and 7 working-memory items admitted through the actor.
 */
export async function populateRealisticAgent(runtime: Runtime, clock: Clock): Promise<RealisticAgentSummary> {
  const now = clock.now();
  const { conversation, ids } = internalsOf(runtime).parts;
  let turnId = '';
  for (let i = 0; i < REALISTIC.messages; i += 1) {
    const role = i % 2 === 0 ? 'user' : 'assistant';
    // Turn ids as the runtime makes them (`t-<time-sortable id>`): a user message opens a turn, the reply shares it.
    if (role === 'user') turnId = `t-${ids.next()}`;
    await conversation.append({
      turnId,
      role,
      text: prose(i, REALISTIC.messageChars),
      ...(role === 'user' ? { from: 'user' } : {}),
      at: now - (REALISTIC.messages - i) * 30_000,
    });
  }
  for (let i = 0; i < REALISTIC.goals; i += 1) {
    runtime.addGoal({
      title: prose(10_000 + i, 40 + (i % 5) * 10),
      priority: 1 + (i % 10),
      // A third of the goals have a due date, all well after the bench ends.
      ...(i % 3 === 0 ? { dueAt: new Date(now + (30 + i) * 86_400_000).toISOString() } : {}),
    });
  }
  const { workingMemory } = internalsOf(runtime).actor.getSnapshot().context.refs;
  for (let i = 0; i < REALISTIC.memoryItems; i += 1) {
    workingMemory.send({
      type: 'memory.admit',
      at: now,
      item: { id: `m-bench-${i}`, content: prose(20_000 + i, 120), salience: 0.6 + i * 0.05 },
    });
  }
  return summarise(runtime);
}

/** Counts what the runtime holds: messages in its log, goals, memory items, and the log's watermark. */
export async function summarise(runtime: Runtime): Promise<RealisticAgentSummary> {
  const { conversation } = internalsOf(runtime).parts;
  return {
    messages: await conversation.count(),
    goals: runtime.listGoals().length,
    memoryItems: runtime.listMemory().length,
    watermark: conversation.watermark(),
  };
}

/** Settings every runtime built on the fixture shares. */
export function fixtureConfig(dataDir: string, overrides: Partial<VigilConfig> = {}): Partial<VigilConfig> {
  return { dataDir, thinker: 'offline', wmCapacity: REALISTIC.wmCapacity, checkpointEnabled: false, ...overrides };
}

/**
 * Builds the realistic agent in `<root>/seed` and stops it, which writes its final checkpoint: later runtimes
 * opened on a copy (`copyRealisticAgent`) restore that state. Time is simulated at the real "now" so the
 * restored working memory has not decayed.
 */
export async function seedRealisticAgent(root: string): Promise<RealisticAgentSummary> {
  const clock = createSimulatedClock(Date.now());
  const runtime = await createRuntime({
    clock,
    thinker: new CountingThinker(),
    config: fixtureConfig(join(root, 'seed'), { beatMs: FIXTURE_BEAT_MS, beatMinMs: FIXTURE_BEAT_MS }),
  });
  runtime.start();
  const failures: string[] = [];
  runtime.events$.subscribe((event) => {
    if (event.type === 'checkpoint.failed') failures.push(event.reason);
  });
  const summary = await populateRealisticAgent(runtime, clock);
  await runtime.stop('bench fixture built');
  // stop() only logs a failed final checkpoint; without it every copy would start cold, so fail loudly here.
  if (failures.length > 0) throw new Error(`The realistic agent's checkpoint could not be saved: ${failures[0]}`);
  return summary;
}

/** Copies the seeded agent's data dir to `<root>/<name>` and returns the copy's path. */
export async function copyRealisticAgent(root: string, name: string): Promise<string> {
  const dataDir = join(root, name);
  await cp(join(root, 'seed'), dataDir, { recursive: true });
  return dataDir;
}
