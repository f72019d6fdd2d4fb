/** What is particular to the OpenAI-compatible thinker: its requests, tool names a provider restricts, arguments, tasks, summaries. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  OpenAiThinker,
  outputCapFieldFor,
  type OpenAiThinkerOptions,
} from '../../../src/subsystems/thinking/openai-thinker.js';
import { FUNCTION_NAME } from '../../../src/subsystems/thinking/openai-tools.js';
import { OWN_TOOL_DEFINITIONS } from '../../../src/subsystems/thinking/own-tools.js';
import type { ModelPricing } from '../../../src/subsystems/thinking/pricing.js';
import type { ExternalToolResult, ThinkTools } from '../../../src/subsystems/thinking/think-tools.js';
import {
  chatTokenUsage,
  completion,
  startFakeChatCompletions,
  toolCall,
  type FakeChatCompletions,
} from '../../fixtures/fake-chat-completions.js';
import { userMessageInput } from '../../fixtures/think-input.fixture.js';

const NOW = Date.parse('2026-03-01T08:00:00Z');
const FREE: ModelPricing = { inputPerMTok: 0, outputPerMTok: 0, cacheWritePerMTok: 0, cacheReadPerMTok: 0 };
const live = () => new AbortController().signal;

let api: FakeChatCompletions;
beforeEach(async () => {
  api = await startFakeChatCompletions();
});
afterEach(async () => {
  await api.close();
});

function thinker(options: Partial<OpenAiThinkerOptions> = {}): OpenAiThinker {
  return new OpenAiThinker({
    apiKey: 'sk-test',
    baseURL: api.url,
    model: 'llama3.2',
    price: FREE,
    maxToolIterations: 4,
    maxRetries: 0,
    timeoutMs: 5000,
    ...options,
  });
}

/** Tools whose names Chat Completions would refuse as they are; every call is recorded. */
function oddlyNamedTools(): ThinkTools & { calls: { name: string; args: unknown }[] } {
  const calls: { name: string; args: unknown }[] = [];
  const schema = { type: 'object', properties: { q: { type: 'string' } } };
  const definitions = [
    { name: 'mcp__my.server__look up', description: 'Looks up.', inputSchema: schema },
    { name: `mcp__server__${'very_long_tool_name_'.repeat(4)}`, description: 'Long.', inputSchema: schema },
  ];
  return {
    calls,
    definitions: () => definitions,
    owns: (name) => name.startsWith('mcp__'),
    call: (request): Promise<ExternalToolResult> => {
      calls.push({ name: request.name, args: request.args });
      return Promise.resolve({
        isError: false,
        content: [
          { type: 'text', text: 'found' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        ],
      });
    },
    notices: () => [],
    acknowledge: () => undefined,
  };
}

describe('OpenAiThinker requests', () => {
  it('posts to /chat/completions with the key, the model, max_tokens for a server other than OpenAI, the system message first and every tool as a function', async () => {
    api.enqueue(completion('hi'));
    await thinker({ maxTokens: 321 }).think(userMessageInput('Hello?', NOW), live());
    const request = api.requests[0]!;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe('Bearer sk-test');
    expect(request.body).toMatchObject({ model: 'llama3.2', max_tokens: 321 });
    expect(request.body.max_completion_tokens).toBeUndefined();
    expect(request.body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
    expect(request.body.messages[0].content).toMatch(/^You are Vigil\.\n\n# How you work/);
    expect(
      request.body.tools.map((t: { type: string; function: { name: string } }) => `${t.type}:${t.function.name}`),
    ).toEqual([
      'function:reply',
      'function:remember',
      'function:feel',
      'function:goal_add',
      'function:goal_progress',
      'function:goal_complete',
      'function:spawn_task',
      'function:recall',
      'function:schedule_add',
      'function:schedule_list',
      'function:schedule_remove',
    ]);
  });

  it("caps output with max_completion_tokens on OpenAI's own API", () => {
    expect(outputCapFieldFor(undefined)).toBe('max_completion_tokens');
    expect(outputCapFieldFor('https://api.openai.com/v1')).toBe('max_completion_tokens');
    expect(outputCapFieldFor('http://localhost:11434/v1')).toBe('max_tokens');
    expect(outputCapFieldFor('https://openrouter.ai/api/v1')).toBe('max_tokens');
  });

  it('sends a placeholder key to a local server when none is configured', async () => {
    api.enqueue(completion('hi'));
    await thinker({ apiKey: undefined }).think(userMessageInput('Hello?', NOW), live());
    expect(api.requests[0]!.headers.authorization).toBe('Bearer no-key');
  });

  it('keeps the prefix (tools, system message) byte for byte across thinks, so the prefix cache reads it', async () => {
    api.enqueue(completion('a'), completion('b'));
    const t = thinker();
    await t.think(userMessageInput('first', NOW), live());
    await t.think({ ...userMessageInput('second', NOW + 60_000), reason: 'goal_work' }, live());
    const [a, b] = api.requests.map((r) => r.body);
    expect(JSON.stringify(a.tools)).toBe(JSON.stringify(b.tools));
    expect(a.messages[0]).toEqual(b.messages[0]);
    expect(chatTokenUsage(api.requests[1]!.usage!).cacheReadTokens).toBeGreaterThan(1024);
  });
});

describe('OpenAiThinker tool calls', () => {
  it('sends tool names the API accepts and maps the calls back to the tools they name, images named in words', async () => {
    const tools = oddlyNamedTools();
    const t = thinker();
    t.useTools(tools);
    api.enqueue(
      {
        kind: 'respond',
        respond: (request) => {
          const names = (request.body.tools as { function: { name: string } }[]).map((tool) => tool.function.name);
          const [first, second] = names.slice(OWN_TOOL_DEFINITIONS.length);
          return completion(null, [toolCall(first!, { q: 'a' }), toolCall(second!, { q: 'b' })]);
        },
      },
      completion('done'),
    );
    await t.think(userMessageInput('look', NOW), live());
    const names = (api.requests[0]!.body.tools as { function: { name: string } }[]).map((tool) => tool.function.name);
    expect(names.every((name) => FUNCTION_NAME.test(name))).toBe(true);
    expect(new Set(names).size).toBe(names.length);
    expect(names[OWN_TOOL_DEFINITIONS.length]).toBe('mcp__my_server__look_up');
    expect(tools.calls.map((c) => c.name)).toEqual([
      'mcp__my.server__look up',
      `mcp__server__${'very_long_tool_name_'.repeat(4)}`,
    ]);
    const answers = (api.requests[1]!.body.messages as { role: string; content: string }[]).filter(
      (m) => m.role === 'tool',
    );
    expect(answers[0]!.content).toMatch(/^found\n\[an image \(image\/png, 4 base64 characters\)/);
  });

  it('answers a call whose arguments are not a JSON object with why, without running it, and asks again', async () => {
    const tools = oddlyNamedTools();
    const t = thinker();
    t.useTools(tools);
    api.enqueue(
      completion(null, [toolCall('mcp__my_server__look_up', '{"q": "a"')]),
      completion('', [toolCall('reply', { turnId: 't-1', text: 'sorry' })]),
      completion(''),
    );
    const result = await t.think(userMessageInput('look', NOW), live());
    expect(tools.calls).toEqual([]);
    const answer = (api.requests[1]!.body.messages as { role: string; content: string }[]).find(
      (m) => m.role === 'tool',
    )!;
    expect(answer.content).toMatch(/^Error: The arguments of mcp__my\.server__look up must be one JSON object/);
    expect(result.actions).toEqual([{ type: 'reply', turnId: 't-1', text: 'sorry' }]);
    expect(result.trace?.toolCalls[0]).toMatchObject({ name: 'mcp__my.server__look up', ok: false });
  });

  it('answers tool calls a server sent with finish_reason stop', async () => {
    api.enqueue(completion(null, [toolCall('reply', { turnId: 't-1', text: 'hi' })], {}, 'stop'), completion('done'));
    const result = await thinker().think(userMessageInput('hello', NOW), live());
    expect(result.actions).toEqual([{ type: 'reply', turnId: 't-1', text: 'hi' }]);
    expect(api.requests).toHaveLength(2);
  });

  it('maps the tool names spawn_task gives a task back to the tools they name', async () => {
    const tools = oddlyNamedTools();
    const t = thinker();
    t.useTools(tools);
    api.enqueue(
      completion(null, [toolCall('spawn_task', { prompt: 'find it', tools: ['mcp__my_server__look_up'] })]),
      completion(''),
    );
    const result = await t.think(userMessageInput('delegate', NOW), live());
    expect(result.actions).toEqual([{ type: 'spawn_task', prompt: 'find it', tools: ['mcp__my.server__look up'] }]);
  });

  it('stops at the iteration guard and says so in the trace', async () => {
    for (let i = 0; i < 2; i++) api.enqueue(completion(null, [toolCall('recall', { query: 'x' })]));
    const result = await thinker({ maxToolIterations: 2 }).think(userMessageInput('hello', NOW), live());
    expect(api.requests).toHaveLength(2);
    expect(result.trace?.stopReason).toBe('max_tool_iterations');
  });
});

describe('OpenAiThinker tasks and summaries', () => {
  it("runs a task with its own tool, named to it as the model sees it, under the think's tools", async () => {
    const tools = oddlyNamedTools();
    const t = thinker();
    t.useTools(tools);
    api.enqueue(
      completion(null, [toolCall('mcp__my_server__look_up', { q: 'tides' })]),
      completion('Found the tides.'),
    );
    const charged: number[] = [];
    const output = await t.runTask(
      { taskId: 'task-1', prompt: 'Find the tides.', identity: 'You are Vigil.', tools: ['mcp__my.server__look up'] },
      live(),
      { onModelCall: async (cost) => void charged.push(cost.costMicroUsd) },
    );
    expect(output.text).toBe('Found the tides.');
    expect(charged).toHaveLength(2);
    expect(tools.calls).toEqual([{ name: 'mcp__my.server__look up', args: { q: 'tides' } }]);
    const first = api.requests[0]!.body;
    expect(first.messages[1].content).toContain('<your_tools>\nmcp__my_server__look_up\n</your_tools>');
    expect(first.tool_choice).toBeUndefined();
    expect(first.tools).toHaveLength(OWN_TOOL_DEFINITIONS.length + 2);
  });

  it('lets a task without tools call none', async () => {
    api.enqueue(completion('An answer.'));
    const output = await thinker().runTask({ taskId: 'task-2', prompt: 'Think.', identity: 'You are Vigil.' }, live());
    expect(output.text).toBe('An answer.');
    expect(api.requests[0]!.body.tool_choice).toBe('none');
  });

  it('updates the rolling summary with one call whose system message holds the summary instructions', async () => {
    api.enqueue(completion('Ada chose tides.'));
    const result = await thinker().summarize(
      {
        previous: '',
        messages: [{ seq: 1, turnId: 't-1', role: 'user', from: 'ada', text: 'Let us study tides.', at: NOW }],
        maxSummaryTokens: 500,
        contextTokens: 8000,
      },
      live(),
    );
    expect(result.text).toBe('Ada chose tides.');
    const body = api.requests[0]!.body;
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
    expect(body.messages[0].content).toMatch(/rolling summary/);
    expect(body.tools).toBeUndefined();
    expect(result.usage).toEqual(chatTokenUsage(api.requests[0]!.usage!));
  });
});
