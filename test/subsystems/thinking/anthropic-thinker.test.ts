import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Goal } from '../../../src/actors/goals/goals.schema.js';
import { AnthropicThinker, type AnthropicThinkerOptions } from '../../../src/subsystems/thinking/anthropic-thinker.js';
import { resolvePrice, totalCostMicroUsd } from '../../../src/subsystems/thinking/pricing.js';
import { ThinkResultSchema, type ThinkInput } from '../../../src/subsystems/thinking/thinker.schema.js';
import {
  fakeMinimumTokens,
  message,
  startFakeMessagesApi,
  text,
  toolUse,
  type FakeMessagesApi,
} from '../../fixtures/fake-messages-api.js';

const NOW = Date.parse('2026-03-01T08:00:00Z');
const MODEL = 'claude-sonnet-4-6';
const PRICE = resolvePrice(MODEL);

function goal(id: string, title: string, priority = 5): Goal {
  return { id, title, priority, progress: 0.2, status: 'active', createdAt: NOW - 1000, updatedAt: NOW - 1000 };
}

function input(overrides: Partial<ThinkInput> = {}): ThinkInput {
  return {
    identity: 'You are Vigil, a patient research assistant.',
    reason: 'user_message',
    turnId: 't-1',
    now: NOW,
    affect: { valence: 0.1, arousal: 0.3, dominance: 0, certainty: 0.5, goalCongruence: 0 },
    workingMemory: [
      {
        id: 'm-1',
        content: 'Ada prefers short answers',
        salience: 0.6,
        createdAt: NOW - 5000,
        lastAttendedAt: NOW - 5000,
      },
    ],
    goals: [goal('g-1', 'Draft the quarterly report', 7)],
    pendingMessages: [{ turnId: 't-1', text: 'How is the report going?', from: 'ada', at: NOW - 100 }],
    swarmResults: [],
    notices: [],
    budget: { spentTodayUsd: 1.25, dailyCapUsd: 5, pct: 25 },
    ...overrides,
  };
}

const live = () => new AbortController().signal;

let api: FakeMessagesApi;
beforeEach(async () => {
  api = await startFakeMessagesApi();
});
afterEach(async () => {
  await api.close();
});

function thinker(options: Partial<AnthropicThinkerOptions> = {}): AnthropicThinker {
  return new AnthropicThinker({
    apiKey: 'sk-test-key',
    baseURL: api.url,
    model: MODEL,
    price: PRICE,
    maxToolIterations: 4,
    maxRetries: 0,
    timeoutMs: 5000,
    ...options,
  });
}

describe('AnthropicThinker prompt caching', () => {
  it('sends a byte-identical, cache-marked prefix across thinks whose volatile state differs', async () => {
    api.enqueue(message([text('noted')]), message([text('noted')]));
    const t = thinker();
    await t.think(input(), live());
    await t.think(
      input({
        reason: 'goal_work',
        turnId: 't-2',
        now: NOW + 3_600_000,
        affect: { valence: -0.4, arousal: 0.9, dominance: 0.2, certainty: 0.1, goalCongruence: -0.3 },
        workingMemory: [],
        goals: [goal('g-9', 'Sort the inbox', 3)],
        focusGoalId: 'g-9',
        pendingMessages: [],
        swarmResults: [
          { taskId: 'task-1', turnId: 't-1', prompt: 'find sources', status: 'done', text: 'three sources' },
        ],
        notices: ['Budget at 90%: wrap up this turn, then sleep.'],
        budget: { spentTodayUsd: 4.5, dailyCapUsd: 5, pct: 90 },
      }),
      live(),
    );
    const [first, second] = api.requests.map((r) => r.body);
    expect(JSON.stringify(first.system)).toBe(JSON.stringify(second.system));
    expect(JSON.stringify(first.tools)).toBe(JSON.stringify(second.tools));
    expect(first.messages).not.toEqual(second.messages);

    // One breakpoint at the end of the tools and one at the end of the system prompt, nowhere else.
    const marks = (blocks: { cache_control?: unknown }[]) => blocks.map((b) => b.cache_control ?? null);
    expect(marks(first.tools)).toEqual([...Array(first.tools.length - 1).fill(null), { type: 'ephemeral' }]);
    expect(marks(first.system)).toEqual([null, { type: 'ephemeral' }]);
    expect(first.system[0].text).toBe('You are Vigil, a patient research assistant.');
    expect(first.tools.map((t: { name: string }) => t.name)).toEqual([
      'reply',
      'remember',
      'feel',
      'goal_add',
      'goal_progress',
      'goal_complete',
      'spawn_task',
      'recall',
      'schedule_add',
      'schedule_list',
      'schedule_remove',
    ]);
  });

  it('puts every volatile value in the first user message and none in the system prompt or tools', async () => {
    api.enqueue(message([text('noted')]));
    await thinker().think(input({ notices: ['Debrief: validate the work.'], focusGoalId: 'g-1' }), live());
    const body = api.requests[0]!.body;
    const prefix = JSON.stringify({ system: body.system, tools: body.tools });
    const state = body.messages[0].content as string;
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0].role).toBe('user');
    for (const volatile of [
      '2026-03-01T08:00:00.000Z',
      'How is the report going?',
      'Ada prefers short answers',
      'Draft the quarterly report',
      '$1.25 of $5.00 spent today (25.0%)',
      'Debrief: validate the work.',
      'valence 0.10',
      'turn: t-1',
      'reason: user_message',
      '[g-1] (focus)',
    ]) {
      expect(state, volatile).toContain(volatile);
      expect(prefix, volatile).not.toContain(volatile);
    }
    expect(prefix).not.toContain('2026-03-01');
  });

  it('renders equal inputs to equal bytes', async () => {
    api.enqueue(message([text('a')]), message([text('b')]));
    await thinker().think(input(), live());
    await thinker().think(structuredClone(input()), live());
    expect(api.requests[0]!.raw).toBe(api.requests[1]!.raw);
  });

  it('calls POST /v1/messages with the model, the key and an output cap', async () => {
    api.enqueue(message([text('ok')]));
    await thinker({ maxTokens: 1234 }).think(input(), live());
    const request = api.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v1/messages');
    expect(request.headers.authorization).toBe('Bearer sk-test-key');
    expect(request.headers['anthropic-version']).toBeDefined();
    expect(request.body).toMatchObject({ model: MODEL, max_tokens: 1234 });
  });
});

describe('AnthropicThinker tool loop', () => {
  it('runs tool_use → tool_result → end_turn and returns the actions in order with the summed usage and cost (the prefix written once, then read)', async () => {
    const first = [
      text('Let me answer first.'),
      toolUse('reply', { turnId: 't-1', text: 'About 20% done.' }, 'tu-1'),
      toolUse('remember', { content: 'Ada asked about the report on 1 March', salience: 0.7 }, 'tu-2'),
    ];
    api.enqueue(
      message(first, { input_tokens: 900, output_tokens: 120 }),
      message(
        [
          toolUse(
            'goal_add',
            { title: 'Send Ada the outline', priority: 8, dueAt: '2026-03-02T09:00:00+01:00' },
            'tu-3',
          ),
          toolUse('goal_progress', { goalId: 'g-1', delta: 0.1 }, 'tu-4'),
        ],
        { input_tokens: 200, output_tokens: 80 },
      ),
      message([text('Done for now.')], { input_tokens: 150, output_tokens: 10 }),
    );
    const result = await thinker().think(input(), live());

    expect(ThinkResultSchema.parse(result)).toEqual(result);
    expect(result.actions).toEqual([
      // Text before the first tool call answers first (it may have streamed as written): the turn's reply joins both.
      { type: 'reply', turnId: 't-1', text: 'Let me answer first.' },
      { type: 'reply', turnId: 't-1', text: 'About 20% done.' },
      { type: 'remember', content: 'Ada asked about the report on 1 March', salience: 0.7 },
      { type: 'goal_add', title: 'Send Ada the outline', priority: 8, dueAt: Date.parse('2026-03-02T08:00:00Z') },
      { type: 'goal_progress', goalId: 'g-1', delta: 0.1 },
    ]);
    // The truthful fake: the first call writes the prefix (tools and system), the two follow-ups read exactly it.
    const prefix = result.usage.cacheWriteTokens;
    expect(prefix).toBeGreaterThanOrEqual(fakeMinimumTokens(MODEL));
    const calls = [
      { inputTokens: 900, outputTokens: 120, cacheWriteTokens: prefix, cacheReadTokens: 0 },
      { inputTokens: 200, outputTokens: 80, cacheWriteTokens: 0, cacheReadTokens: prefix },
      { inputTokens: 150, outputTokens: 10, cacheWriteTokens: 0, cacheReadTokens: prefix },
    ];
    expect(result.usage).toEqual({
      inputTokens: 1250,
      outputTokens: 210,
      cacheWriteTokens: prefix,
      cacheReadTokens: 2 * prefix,
    });
    // 1250 x 3 + 210 x 15 + prefix x 3.75 + 2 prefix x 0.3 micro-dollars on Sonnet 4.6, rounded up once.
    expect(result.costMicroUsd).toBe(3750 + 3150 + Math.ceil(prefix * 3.75 + 2 * prefix * 0.3));
    expect(result.costMicroUsd).toBe(totalCostMicroUsd(calls, PRICE));
    expect(result.model).toBe(MODEL);

    // Each follow-up replays the assistant turn verbatim and answers every tool_use by id.
    expect(api.requests).toHaveLength(3);
    const second = api.requests[1]!.body.messages;
    expect(second).toHaveLength(3);
    expect(second[1].role).toBe('assistant');
    expect(second[1].content.map((b: { type: string }) => b.type)).toEqual(['text', 'tool_use', 'tool_use']);
    expect(second[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'tu-1', content: 'ok' },
        { type: 'tool_result', tool_use_id: 'tu-2', content: 'ok' },
      ],
    });
    expect(api.requests[2]!.body.messages).toHaveLength(5);
    expect(api.requests[2]!.body.messages[0]).toEqual(api.requests[0]!.body.messages[0]);
  });

  it('maps every tool to its action', async () => {
    api.enqueue(
      message([
        toolUse('feel', { valence: 0.3, certainty: -0.2, intensity: 0.5 }),
        toolUse('feel', { arousal: 0.1 }),
        toolUse('goal_complete', { goalId: 'g-1' }),
        toolUse('spawn_task', { prompt: 'Find three sources on tidal power.' }),
        toolUse('goal_add', { title: 'Read the sources' }),
      ]),
      message([text('ok')]),
    );
    const result = await thinker().think(input({ pendingMessages: [], reason: 'goal_work' }), live());
    expect(result.actions).toEqual([
      { type: 'feel', delta: { valence: 0.3, certainty: -0.2 }, intensity: 0.5 },
      { type: 'feel', delta: { arousal: 0.1 } },
      { type: 'goal_complete', goalId: 'g-1' },
      { type: 'spawn_task', prompt: 'Find three sources on tidal power.' },
      { type: 'goal_add', title: 'Read the sources' },
    ]);
  });

  it('answers invalid tool input with an is_error result naming the problem, and applies no action for it', async () => {
    api.enqueue(
      message([
        toolUse('remember', { content: '', salience: 2 }, 'bad-1'),
        toolUse('goal_progress', { goalId: 'g-404', delta: 0.1 }, 'bad-2'),
        toolUse('reply', { turnId: 't-unknown', text: 'hi' }, 'bad-3'),
        toolUse('goal_add', { title: 'Later', dueAt: 'next tuesday' }, 'bad-4'),
        toolUse('feel', {}, 'bad-5'),
        toolUse('launch_rocket', { now: true }, 'bad-6'),
      ]),
      message([toolUse('remember', { content: 'Ada wants the outline first', salience: 0.5 }, 'good-1')]),
      message([text('corrected')]),
    );
    const result = await thinker().think(input({ reason: 'goal_work', pendingMessages: [] }), live());
    expect(result.actions).toEqual([{ type: 'remember', content: 'Ada wants the outline first', salience: 0.5 }]);

    const results = api.requests[1]!.body.messages[2].content as {
      tool_use_id: string;
      is_error?: boolean;
      content: string;
    }[];
    expect(results.map((r) => [r.tool_use_id, r.is_error])).toEqual([
      ['bad-1', true],
      ['bad-2', true],
      ['bad-3', true],
      ['bad-4', true],
      ['bad-5', true],
      ['bad-6', true],
    ]);
    expect(results[0]!.content).toMatch(/content: .*>=1 characters/);
    expect(results[0]!.content).toMatch(/salience: .*<=1/);
    expect(results[1]!.content).toContain('goalId "g-404" is not known; use one of: "g-1"');
    expect(results[2]!.content).toContain('turnId "t-unknown" is not known; use one of: "t-1"');
    expect(results[3]!.content).toMatch(/dueAt: Invalid ISO datetime/);
    expect(results[4]!.content).toContain('give at least one of valence');
    expect(results[5]!.content).toContain('Unknown tool "launch_rocket"');
  });

  it('stops at the iteration guard without an error, keeping the actions so far and charging every call', async () => {
    for (let i = 1; i <= 3; i++) {
      api.enqueue(
        message([toolUse('remember', { content: `step ${i}`, salience: 0.5 })], {
          input_tokens: 100,
          output_tokens: 10,
        }),
      );
    }
    const result = await thinker({ maxToolIterations: 2 }).think(input(), live());
    expect(api.requests).toHaveLength(2);
    expect(result.actions).toEqual([
      { type: 'remember', content: 'step 1', salience: 0.5 },
      { type: 'remember', content: 'step 2', salience: 0.5 },
    ]);
    expect(result.usage.inputTokens).toBe(200);
    // Both calls charged: their input and output, the prefix written by the first and read by the second.
    const prefix = result.usage.cacheWriteTokens;
    expect(result.usage.cacheReadTokens).toBe(prefix);
    expect(result.costMicroUsd).toBe(2 * (300 + 150) + Math.ceil(prefix * 3.75 + prefix * 0.3));
  });

  it('turns final text into the reply when the model answered a pending message without calling reply', async () => {
    api.enqueue(message([text('It is about 20% done.')]));
    const result = await thinker().think(input(), live());
    expect(result.actions).toEqual([{ type: 'reply', turnId: 't-1', text: 'It is about 20% done.' }]);
  });

  it('drops stray text when there is nothing to answer', async () => {
    api.enqueue(message([text('Thinking out loud.')]));
    const result = await thinker().think(input({ pendingMessages: [], reason: 'goal_work' }), live());
    expect(result.actions).toEqual([]);
  });
});

describe('AnthropicThinker.runTask', () => {
  it("makes one call that may use no tool, on the think's cached prefix, and returns the text, usage and cost", async () => {
    api.enqueue(
      message([text('noted')]),
      message([text('Three sources: A, B, C.')], { input_tokens: 400, output_tokens: 50 }),
    );
    const t = thinker();
    await t.think(input({ identity: 'You are Vigil.' }), live());
    const output = await t.runTask(
      { taskId: 'task-1', prompt: 'Find three sources on tidal power.', identity: 'You are Vigil.' },
      live(),
    );

    const [think, task] = api.requests.map((r) => r.body);
    // The think's tools and cached system blocks, byte for byte; the sub-agent instruction after the breakpoint.
    expect(JSON.stringify(task.tools)).toBe(JSON.stringify(think.tools));
    expect(JSON.stringify(task.system.slice(0, 2))).toBe(JSON.stringify(think.system));
    expect(task.system).toHaveLength(3);
    expect(task.system[2].cache_control).toBeUndefined();
    expect(task.system[2].text).toContain('sub-agent');
    expect(task.tool_choice).toEqual({ type: 'none' });
    expect(task.messages).toEqual([{ role: 'user', content: '<task>\nFind three sources on tidal power.\n</task>' }]);

    // So the task reads what the think wrote: the truthful fake counts a read of the whole shared prefix.
    const prefix = output.usage.cacheReadTokens;
    expect(prefix).toBeGreaterThanOrEqual(fakeMinimumTokens(MODEL));
    expect(output).toEqual({
      text: 'Three sources: A, B, C.',
      usage: { inputTokens: 400, outputTokens: 50, cacheWriteTokens: 0, cacheReadTokens: prefix },
      costMicroUsd: 1200 + 750 + Math.ceil(prefix * 0.3),
      model: MODEL,
    });
  });
});
