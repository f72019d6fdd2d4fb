/**
 * The offline thinker's acting commands (`/tool`, `/schedule`, `/task tools=…`) act with the scope of the message's
 * sender (CONTRACT §14): sent over a real gateway with a talk token they are refused with a reply naming `operate` and
 * nothing happens; with an operate token they work. A schedule's firings act as the scope its creator implies.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { stdioFixture } from '../subsystems/tools/mcp-hub.fixture.js';
import { advanceUntil, startGatewayHarness, type GatewayHarness, type RawClient } from './gateway.fixture.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Sends `text` as `client`'s token over `agent.send` and resolves with the agent's reply to it. */
async function ask(harness: GatewayHarness, client: RawClient, text: string): Promise<string> {
  const response = await client.request('agent.send', { text });
  const { turnId } = response.result as { turnId: string };
  const reply = () => harness.ofType('agent.reply').find((e) => e.turnId === turnId);
  await advanceUntil(harness, () => reply() !== undefined);
  return reply()!.text;
}

const toolCalls = (harness: GatewayHarness) => harness.ofType('tool.called').length;

describe('the offline thinker’s commands over the gateway', () => {
  it('refuses /tool, /schedule and /task tools=… from a talk token, naming operate, and runs them for operate', async () => {
    h = await startGatewayHarness({
      runtime: { config: { mcp: { mcpServers: { fixture: stdioFixture() } } } },
    });
    const harness = h;
    await advanceUntil(harness, () => harness.events.some((e) => e.type === 'mcp.server_up'));
    const { token } = await harness.runtime.tokens.create({ scope: 'talk', name: 'chat-bridge' });
    const talk = await harness.connect({ token });
    const operate = await harness.connect();
    const listSchedules = async () => (await operate.request('schedules.list')).result as unknown[];

    const refusal = /needs the operate scope, and this message was sent with a talk token, so nothing was done/;
    expect(await ask(harness, talk, '/tool fixture__echo {"text": "from talk"}')).toMatch(
      new RegExp(`^/tool ${refusal.source}`),
    );
    expect(toolCalls(harness)).toBe(0);
    expect(await ask(harness, talk, '/schedule add {"text":"every hour","everyMs":3600000}')).toMatch(
      new RegExp(`^/schedule ${refusal.source}`),
    );
    expect(await ask(harness, talk, '/schedule list')).toMatch(refusal);
    expect(await listSchedules()).toEqual([]);
    expect(await ask(harness, talk, '/task tools=fixture__echo\n/tool fixture__echo {"text": "via a task"}')).toMatch(
      refusal,
    );
    expect(harness.ofType('swarm.task_spawned')).toEqual([]);
    // Talking is what talk is for: an ordinary message is answered as ever.
    expect(await ask(harness, talk, 'hello there')).not.toMatch(refusal);

    expect(await ask(harness, operate, '/tool fixture__echo {"text": "from operate"}')).toBe(
      'mcp__fixture__echo returned:\nfrom operate',
    );
    expect(toolCalls(harness)).toBe(1);
    expect(await ask(harness, operate, '/schedule add {"text":"every hour","everyMs":3600000}')).toMatch(/every hour/);
    expect(await listSchedules()).toHaveLength(1);
  });

  it("fires an operator's schedule as operate and the model's as talk", async () => {
    h = await startGatewayHarness({
      runtime: { config: { mcp: { mcpServers: { fixture: stdioFixture() } } } },
    });
    const harness = h;
    await advanceUntil(harness, () => harness.events.some((e) => e.type === 'mcp.server_up'));
    const operate = await harness.connect();
    // The operator's, over RPC (createdBy operator); the model's, through /schedule add (createdBy model).
    await operate.request('schedules.add', { text: '/tool fixture__echo {"text": "operator tick"}', everyMs: 60_000 });
    await ask(
      harness,
      operate,
      '/schedule add {"text":"/tool fixture__echo {\\"text\\": \\"model tick\\"}","everyMs":60000}',
    );
    const replies = () => harness.ofType('agent.reply').map((e) => e.text);
    await advanceUntil(
      harness,
      () => replies().some((t) => t.includes('operator tick')) && replies().some((t) => /^\/tool needs/.test(t)),
    );
    expect(replies()).toContain('mcp__fixture__echo returned:\noperator tick');
    expect(replies()).not.toContain('mcp__fixture__echo returned:\nmodel tick');
    expect(harness.ofType('tool.called')).toHaveLength(1);
  });
});
