/**
 * Long-term memory inside thinks, with the real Anthropic SDK against the fake Messages API: what working memory
 * pushes out salient enough is consolidated; the recall tool is answered within the think; recalled memories are
 * in the state message; a forgotten one is in no later prompt.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  firstUserText,
  message,
  pendingTurnIds,
  startFakeMessagesApi,
  toolUse,
  type FakeMessagesApi,
  type RecordedRequest,
} from '../../fixtures/fake-messages-api.js';
import { startAnthropicRuntime, type AnthropicHarness } from '../../faults/anthropic-harness.js';

let api: FakeMessagesApi | undefined;
let h: AnthropicHarness | undefined;
afterEach(async () => {
  await h?.runtime.stop().catch(() => undefined);
  await api?.close();
  h = undefined;
});

const stateOf = firstUserText;
/** The first request of the think that carried `turnId` (robust to retried requests). */
const thinkFor = (turnId: string): RecordedRequest => {
  const found = api!.requests.find((r) => (r.body?.messages?.length ?? 0) === 1 && pendingTurnIds(r).includes(turnId));
  if (found === undefined) throw new Error(`no think request carried ${turnId}`);
  return found;
};

/** Runs simulated time (bounded) until the turn has its reply and the settle that followed it is done. */
async function untilReplied(turnId: string): Promise<void> {
  for (let i = 0; i < 50 && !h!.ofType('agent.reply').some((e) => e.turnId === turnId); i += 1) await h!.runFor(200);
  expect(h!.ofType('agent.reply').map((e) => e.turnId)).toContain(turnId);
  // The settle writes long-term memory after the reply: let it finish.
  for (let i = 0; i < 50 && h!.runtime.status().phase !== 'sleep'; i += 1) await h!.runFor(100);
  // Consolidation writes behind the beat; a search waits for every write queued before it.
  await h!.runtime.searchMemory({ query: 'anything' });
}
const replyAll = (request: RecordedRequest) =>
  pendingTurnIds(request).map((turnId) => toolUse('reply', { turnId, text: 'Done.' }));

describe('long-term memory in thinks', () => {
  it('consolidates an item evicted from working memory and answers recall within the think', async () => {
    api = await startFakeMessagesApi();
    const fillers = Array.from({ length: 7 }, (_, i) =>
      toolUse('remember', { content: `Filler fact number ${i}`, salience: 0.8 }),
    );
    api.enqueue(
      // Think 1: one item at 0.6, then seven more salient ones push it out of the seven slots.
      {
        kind: 'respond',
        respond: (r) =>
          message([
            toolUse('remember', { content: 'Project Falcon ships in May', salience: 0.6 }),
            ...fillers,
            ...replyAll(r),
          ]),
      },
      message([]),
      // Think 2: the model recalls, then answers.
      { kind: 'respond', respond: () => message([toolUse('recall', { query: 'falcon ship date' })]) },
      { kind: 'respond', respond: (r) => message(replyAll({ ...r, body: { messages: [r.body.messages[0]] } })) },
      message([]),
    );
    h = await startAnthropicRuntime(api);
    await untilReplied((await h.runtime.send({ text: 'Here is a lot to note.' })).turnId);
    const [consolidated] = await h.runtime.searchMemory({ query: 'falcon' });
    expect(consolidated).toMatchObject({ content: 'Project Falcon ships in May', source: 'working_memory' });
    expect(consolidated!.salience).toBeCloseTo(0.6);
    expect(h.runtime.listMemory().map((m) => m.content)).not.toContain('Project Falcon ships in May');

    await untilReplied((await h.runtime.send({ text: 'When does the new project ship?' })).turnId);
    const afterRecall = api.requests.find((r) =>
      (r.body?.messages?.[1]?.content ?? []).some(
        (block: { type: string; name?: string }) => block.type === 'tool_use' && block.name === 'recall',
      ),
    )!;
    const toolResult = afterRecall.body.messages[2].content[0];
    expect(toolResult).toMatchObject({ type: 'tool_result' });
    expect(toolResult.is_error).toBeUndefined();
    expect(toolResult.content).toMatch(/^- \[mem-1\] memory \(working_memory\), .*"Project Falcon ships in May"$/m);
    expect(h.ofType('agent.reply')).toHaveLength(2);
  });

  it('recalls the memories relevant to a message into its prompt, and not once forgotten', async () => {
    api = await startFakeMessagesApi();
    api.enqueue(
      {
        kind: 'respond',
        respond: (r) =>
          message([
            toolUse('remember', { content: 'The wifi password is hunter2', salience: 0.3, keep: true }),
            ...replyAll(r),
          ]),
      },
      message([]),
      { kind: 'respond', respond: (r) => message(replyAll(r)) },
      message([]),
      { kind: 'respond', respond: (r) => message(replyAll(r)) },
      message([]),
    );
    h = await startAnthropicRuntime(api);
    await untilReplied((await h.runtime.send({ text: 'Note the network details.' })).turnId);
    const asked = (await h.runtime.send({ text: 'What was the wifi password again?' })).turnId;
    await untilReplied(asked);
    expect(stateOf(thinkFor(asked))).toMatch(
      /<recalled_memories>\n- \[mem-1\] conversation, [^\n]*"The wifi password is hunter2"\n<\/recalled_memories>/,
    );

    await h.runtime.forgetMemory('mem-1');
    await expect(h.runtime.forgetMemory('mem-1')).rejects.toMatchObject({ code: 'MEMORY_NOT_FOUND' });
    const again = (await h.runtime.send({ text: 'What was the wifi password again?' })).turnId;
    await untilReplied(again);
    expect(stateOf(thinkFor(again))).not.toContain('hunter2');
    expect(stateOf(thinkFor(again))).toContain('<recalled_memories>\n(none)\n</recalled_memories>');
  });

  it("keeps a fact with the source the model names for it, and as the conversation's when it names none", async () => {
    api = await startFakeMessagesApi();
    api.enqueue(
      {
        kind: 'respond',
        respond: (r) =>
          message([
            toolUse('remember', {
              content: 'The staging host runs Debian 13',
              salience: 0.7,
              keep: true,
              source: 'tool',
            }),
            toolUse('remember', { content: 'The user prefers short answers', salience: 0.7, keep: true }),
            ...replyAll(r),
          ]),
      },
      message([]),
    );
    h = await startAnthropicRuntime(api);
    await untilReplied((await h.runtime.send({ text: 'Check the staging host.' })).turnId);
    expect(await h.runtime.searchMemory({ query: 'staging debian' })).toMatchObject([
      { content: 'The staging host runs Debian 13', source: 'tool' },
    ]);
    expect(await h.runtime.searchMemory({ query: 'short answers' })).toMatchObject([
      { content: 'The user prefers short answers', source: 'conversation' },
    ]);
  });

  it("offers recall among the tools, after Vigil's own and before the cache breakpoint moves to the last tool", async () => {
    api = await startFakeMessagesApi();
    api.enqueue({ kind: 'respond', respond: (r) => message(replyAll(r)) }, message([]));
    h = await startAnthropicRuntime(api);
    await untilReplied((await h.runtime.send({ text: 'hi' })).turnId);
    const tools = api.requests[0]!.body.tools as Array<{
      name: string;
      cache_control?: unknown;
      input_schema: { properties: Record<string, unknown> };
    }>;
    expect(tools.map((t) => t.name)).toContain('recall');
    expect(tools.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    expect(Object.keys(tools.find((t) => t.name === 'remember')!.input_schema.properties)).toEqual([
      'content',
      'salience',
      'keep',
      'source',
    ]);
  });

  it('forgets the least worth keeping once VIGIL_MEMORY_MAX_COUNT is passed, with a memory.evicted event', async () => {
    api = await startFakeMessagesApi();
    // 101 facts kept in one think; the first two matter least.
    const facts = Array.from({ length: 101 }, (_, i) =>
      toolUse('remember', { content: `Bounded fact number ${i}`, salience: i < 2 ? 0.1 : 0.9, keep: true }),
    );
    api.enqueue({ kind: 'respond', respond: (r) => message([...facts, ...replyAll(r)]) }, message([]));
    h = await startAnthropicRuntime(api, { config: { memoryMaxCount: 100 } });
    await untilReplied((await h.runtime.send({ text: 'Note all of this.' })).turnId);
    // Past 100 by one: down to 1 % below the bound (99), so two go, the least salient.
    const [evicted, ...more] = h.ofType('memory.evicted');
    expect(more).toEqual([]);
    expect(evicted).toMatchObject({ count: 2 });
    const hits = await h.runtime.searchMemory({ query: 'bounded fact', limit: 100 });
    expect(hits).toHaveLength(99);
    const kept = new Set(hits.map((hit) => hit.id));
    for (const id of evicted!.ids) expect(kept.has(id)).toBe(false);
    expect(hits.map((hit) => hit.content)).not.toContain('Bounded fact number 0');
    expect(hits.map((hit) => hit.content)).not.toContain('Bounded fact number 1');
  });
});
