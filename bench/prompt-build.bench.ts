/**
 * Bench 8: building one think's prompt at a 10,000-message history: the recent turns from the summary keeper's
 * memory, the bounded sections, and the measure of the whole request body against VIGIL_CONTEXT_TOKENS, as a think
 * does before each model call. Target: at most 5 ms (median).
 */
import { MemoryLevel } from 'memory-level';
import { readFile } from 'node:fs/promises';
import { createSimulatedClock } from '../src/shared/clock.js';
import { silentLogger } from '../src/shared/logger.js';
import { ConversationLog } from '../src/subsystems/conversation/conversation-log.js';
import { TurnWorkLog } from '../src/subsystems/conversation/turn-work-log.js';
import type { VigilDb } from '../src/subsystems/store/vigil-db.js';
import { ConversationSummaryKeeper } from '../src/subsystems/summary/conversation-summary.js';
import { SummaryStore } from '../src/subsystems/summary/summary-store.js';
import { ThinkContext } from '../src/subsystems/summary/think-context.js';
import { firstUserContent, summaryBlock, thinkSystem } from '../src/subsystems/thinking/anthropic-prompt.js';
import { requestTools } from '../src/subsystems/thinking/anthropic-tools.js';
import { DEFAULT_CONTEXT_TOKENS } from '../src/subsystems/thinking/context-defaults.js';
import { buildBudgetedPrompt } from '../src/subsystems/thinking/prompt-budget.js';
import { extractiveSummary } from '../src/subsystems/thinking/summary-lines.js';
import type { ThinkInput } from '../src/subsystems/thinking/thinker.schema.js';
import { TokenCalibration } from '../src/subsystems/thinking/token-calibration.js';
import { median, percentile } from './bench-utils.js';
import { ratioCheck, ratioInfo, sanity, type BenchOutcome } from './report.js';

const HISTORY = 10_000;
const TARGET_MS = 5;
const START = Date.parse('2026-03-01T10:00:00Z');

/** Runs bench 8. */
export async function promptBuildBench(options: { history?: number; reps?: number } = {}): Promise<BenchOutcome> {
  const history = options.history ?? HISTORY;
  const reps = options.reps ?? 200;
  const db = new MemoryLevel() as unknown as VigilDb;
  const conversation = new ConversationLog(db);
  await conversation.open();
  // Messages of every length a chat has: a word, a paragraph, a pasted page.
  for (let i = 0; i < history; i++) {
    const size = [20, 300, 1200, 4000][i % 4]!;
    await conversation.append({
      turnId: `t-${Math.floor(i / 2)}`,
      role: i % 2 === 0 ? 'user' : 'assistant',
      text: `message ${i} ${'lorem ipsum '.repeat(size / 12)}`,
      at: START + i * 1000,
      ...(i % 2 === 0 ? { from: 'ada' } : {}),
    });
  }
  const clock = createSimulatedClock(START + history * 1000);
  const keeper = new ConversationSummaryKeeper({
    store: new SummaryStore(db),
    conversation,
    clock,
    log: silentLogger,
    contextTokens: DEFAULT_CONTEXT_TOKENS,
    summarize: (r) => Promise.resolve(extractiveSummary(r)),
  });
  await keeper.open();
  await keeper.update(() => Promise.resolve());
  const context = new ThinkContext({ keeper, conversation, work: new TurnWorkLog() });
  const identity = (await readFile(new URL('../identity/default.md', import.meta.url), 'utf8')).trim();
  const base: ThinkInput = {
    identity,
    reason: 'user_message',
    turnId: 't-last',
    now: clock.now(),
    affect: { valence: 0.1, arousal: 0.3, dominance: 0, certainty: 0.5, goalCongruence: 0 },
    workingMemory: Array.from({ length: 7 }, (_, i) => ({
      id: `m-${i}`,
      content: `a fact worth keeping, number ${i}`,
      salience: 0.5,
      createdAt: START,
      lastAttendedAt: START,
    })),
    goals: [],
    pendingMessages: [{ turnId: 't-last', text: 'What did we decide yesterday?', from: 'ada', at: clock.now() }],
    swarmResults: [],
    notices: [],
    contextTokens: DEFAULT_CONTEXT_TOKENS,
  };
  const counter = new TokenCalibration();
  const prefix = thinkSystem(identity);
  const tools = requestTools([]);
  const build = () => {
    const input = { ...base, conversation: context.conversation(DEFAULT_CONTEXT_TOKENS) };
    const frame = { model: 'm', max_tokens: 4096, system: prefix, tools, messages: [{ role: 'user', content: '' }] };
    const fixedTokens = counter.countJson(frame);
    const built = buildBudgetedPrompt({ input, boundTokens: DEFAULT_CONTEXT_TOKENS, fixedTokens, counter });
    const body = {
      ...frame,
      system: built.summary === null ? prefix : [...prefix, summaryBlock(built.summary)],
      messages: [{ role: 'user', content: firstUserContent(built.conversation, built.state) }],
    };
    return { built, tokens: counter.countJson(body), body };
  };
  for (let i = 0; i < 20; i++) build();
  const times: number[] = [];
  const serialise: number[] = [];
  let last = build();
  for (let i = 0; i < reps; i++) {
    const start = performance.now();
    last = build();
    times.push(performance.now() - start);
    const s = performance.now();
    JSON.stringify(last.body);
    serialise.push(performance.now() - s);
  }
  const buildMs = median(times);
  await db.close();
  return {
    id: 'prompt-build',
    title: '10. Prompt build at a 10,000-message history',
    checks: [
      ratioCheck(
        'prompt-build',
        'prompt build (median) / 5 ms target',
        { value: buildMs, unit: 'ms', what: `one bounded prompt, ${history} messages in the log` },
        { value: TARGET_MS, unit: 'ms', what: 'the target' },
        '<=',
        1,
      ),
      ratioInfo(
        'prompt-build-vs-json',
        'prompt build / serialising the request once',
        { value: buildMs, unit: 'ms', what: 'one bounded prompt' },
        {
          value: median(serialise),
          unit: 'ms',
          what: 'JSON.stringify of the same request (the SDK does this once per call)',
        },
      ),
    ],
    details: [
      { label: 'p90 build', value: percentile(times, 90), unit: 'ms' },
      { label: 'request tokens (estimate)', value: last.tokens, unit: 'tokens' },
      { label: 'recent entries shown', value: last.built.recentShown, unit: 'entries' },
    ],
    sanity: [
      sanity(
        'the prompt stays under the bound',
        last.tokens <= DEFAULT_CONTEXT_TOKENS,
        `${last.tokens} of ${DEFAULT_CONTEXT_TOKENS} tokens`,
      ),
      sanity(
        'the summary is in the prompt',
        last.built.summary !== null,
        last.built.summary === null ? 'none' : 'shown',
      ),
      sanity(
        'recent turns are in the prompt',
        last.built.recentShown > 0,
        `${last.built.recentShown} shown, ${last.built.recentOmitted} left out`,
      ),
    ],
    notes: ['The keeper holds the newest 1,000 entries in memory; a think reads no store on its way to the model.'],
  };
}
