/** Tool-call approvals through a whole runtime with the real stdio MCP fixture: approve and deny round trips, other turns and beats go on meanwhile, a pending call survives a crash, the RPC errors. */
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isVigilError } from '../../src/errors.js';
import { EventBus } from '../../src/events/event-bus.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { ToolCallLog } from '../../src/subsystems/tools/tool-call-log.js';
import { message, startFakeMessagesApi, text, toolUse, type FakeMessagesApi } from '../fixtures/fake-messages-api.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { startAnthropicRuntime, type AnthropicHarness } from '../faults/anthropic-harness.js';
import { stdioFixture } from '../subsystems/tools/mcp-hub.fixture.js';
import { calls, until, useCleanups } from './runtime-tools.fixture.js';

const { cleanups, tempDir } = useCleanups('vigil-approvals-');

/** The same for a runtime whose thinks are real HTTP calls: simulated time never runs ahead of a think in flight. */
async function untilThought(h: AnthropicHarness, done: () => boolean): Promise<void> {
  await vi.waitFor(
    async () => {
      await h.runFor(1000);
      expect(done()).toBe(true);
    },
    { timeout: 15_000, interval: 10 },
  );
}

const mcpConfig = (countFile: string) => ({
  mcp: {
    mcpServers: { fixture: stdioFixture({ FIXTURE_COUNT_FILE: countFile }, { requireApproval: ['tally', 'hang'] }) },
  },
});

const endingsOf = (events: readonly VigilEvent[], turnId: string) =>
  events.filter((e) => (e.type === 'agent.reply' || e.type === 'agent.unanswered') && e.turnId === turnId);

async function offlineRuntime(countFile: string): Promise<RuntimeHarness> {
  const h = await startRuntime({ config: mcpConfig(countFile) });
  cleanups.push(() => h.runtime.stop());
  await until(h, () => h.ofType('mcp.server_up').length === 1);
  return h;
}

describe('tool-call approvals in a runtime (offline thinker, stdio fixture)', () => {
  it('waits for approval while the heartbeat beats and another message is answered; approved, it runs once and the turn gets its result', async () => {
    const countFile = join(tempDir(), 'count');
    const h = await offlineRuntime(countFile);
    const { turnId } = await h.runtime.send({ text: '/tool fixture__tally {"text": "deploy now"}' });
    await until(h, () => h.ofType('tool.approval_requested').length === 1);
    const [requested] = h.ofType('tool.approval_requested');
    expect(requested).toMatchObject({ name: 'mcp__fixture__tally', args: { text: 'deploy now' }, turnId });
    const { callId } = requested!;
    expect(h.runtime.pendingToolCalls()).toEqual([
      {
        callId,
        name: 'mcp__fixture__tally',
        args: { text: 'deploy now' },
        turnId,
        requestedAt: new Date(requested!.at).toISOString(),
      },
    ]);

    // Waiting: beats go on, another message is answered, the waiting turn is neither answered nor counted as missed.
    const beatsBefore = h.ofType('heartbeat.beat').length;
    const { turnId: other } = await h.runtime.send({ text: 'hello there' });
    await until(h, () => endingsOf(h.events, other).length === 1);
    await h.advance(10_000, 1000);
    expect(h.ofType('heartbeat.beat').length).toBeGreaterThanOrEqual(beatsBefore + 10);
    expect(endingsOf(h.events, turnId)).toEqual([]);
    expect(h.ofType('think.failed')).toEqual([]);
    expect(calls(countFile)).toBe(0);
    expect(h.ofType('tool.called')).toEqual([]);

    const decision = await h.runtime.approveToolCall(callId);
    expect(decision).toMatchObject({ callId, name: 'mcp__fixture__tally', approved: true });
    expect(decision).not.toHaveProperty('reason');
    await until(h, () => endingsOf(h.events, turnId).length === 1);
    expect(endingsOf(h.events, turnId)).toEqual([
      expect.objectContaining({
        type: 'agent.reply',
        text: expect.stringMatching(
          /^Tool call call-\S+ \(mcp__fixture__tally with arguments \{"text":"deploy now"\}\) was approved by the operator and returned:\ndeploy now$/,
        ),
      }),
    ]);
    expect(calls(countFile)).toBe(1);
    expect(h.ofType('tool.approval_decided')).toEqual([
      expect.objectContaining({ callId, name: 'mcp__fixture__tally', approved: true }),
    ]);
    expect(h.ofType('tool.called')).toEqual([expect.objectContaining({ callId, turnId, name: 'mcp__fixture__tally' })]);
    expect(h.ofType('tool.completed')).toEqual([expect.objectContaining({ callId, ok: true })]);
    // In order: requested, decided, called, completed, then the reply.
    const order = h.events
      .filter((e) => e.type.startsWith('tool.') || (e.type === 'agent.reply' && e.turnId === turnId))
      .map((e) => e.type);
    expect(order).toEqual([
      'tool.approval_requested',
      'tool.approval_decided',
      'tool.called',
      'tool.completed',
      'agent.reply',
    ]);
    expect(h.runtime.pendingToolCalls()).toEqual([]);
    await h.advance(5000, 1000);
    expect(endingsOf(h.events, turnId)).toHaveLength(1);
    const [record] = await (await ToolCallLog.open(h.db)).all();
    expect(record).toMatchObject({
      callId,
      approval: { state: 'approved', delivered: true },
      result: { ok: true, text: 'deploy now' },
    });
  });

  it('denied, the call never runs and the turn is told it was denied and why', async () => {
    const countFile = join(tempDir(), 'count');
    const h = await offlineRuntime(countFile);
    const { turnId } = await h.runtime.send({ text: '/tool fixture__tally {"text": "rm -rf"}' });
    await until(h, () => h.ofType('tool.approval_requested').length === 1);
    const { callId } = h.ofType('tool.approval_requested')[0]!;
    const decision = await h.runtime.denyToolCall({ callId, reason: 'not on a Friday' });
    expect(decision).toMatchObject({ callId, approved: false, reason: 'not on a Friday' });
    await until(h, () => endingsOf(h.events, turnId).length === 1);
    expect(endingsOf(h.events, turnId)).toEqual([
      expect.objectContaining({
        type: 'agent.reply',
        text: expect.stringMatching(
          /was denied by the operator \(the reason given: not on a Friday\)\. It was not run\.$/,
        ),
      }),
    ]);
    expect(h.ofType('tool.approval_decided')).toEqual([
      expect.objectContaining({ callId, approved: false, reason: 'not on a Friday' }),
    ]);
    expect(h.ofType('tool.called')).toEqual([]);
    expect(calls(countFile)).toBe(0);
    const metrics = await h.metrics.text();
    expect(metrics).toContain('vigil_tool_approvals_total{tool="mcp__fixture__tally",decision="requested"} 1');
    expect(metrics).toContain('vigil_tool_approvals_total{tool="mcp__fixture__tally",decision="denied"} 1');
  });

  it('refuses a decision on an unknown call, on one already decided, and on a call that needed none, with stable codes', async () => {
    const countFile = join(tempDir(), 'count');
    const h = await offlineRuntime(countFile);
    const code = async (promise: Promise<unknown>) => {
      const err = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isVigilError(err)).toBe(true);
      return (err as { code: string; toJsonRpc(): { code: number } }).toJsonRpc().code === -32004
        ? `${(err as { code: string }).code}/-32004`
        : `${(err as { code: string }).code}/${(err as { toJsonRpc(): { code: number } }).toJsonRpc().code}`;
    };
    expect(await code(h.runtime.approveToolCall('call-nope'))).toBe('TOOL_CALL_NOT_FOUND/-32004');
    expect(await code(h.runtime.denyToolCall({ callId: 'call-nope' }))).toBe('TOOL_CALL_NOT_FOUND/-32004');

    await h.runtime.send({ text: '/tool fixture__tally {"text": "x"}' });
    await until(h, () => h.ofType('tool.approval_requested').length === 1);
    const { callId } = h.ofType('tool.approval_requested')[0]!;
    await h.runtime.denyToolCall({ callId });
    expect(await code(h.runtime.approveToolCall(callId))).toBe('TOOL_CALL_NOT_PENDING/-32010');
    expect(await code(h.runtime.denyToolCall({ callId }))).toBe('TOOL_CALL_NOT_PENDING/-32010');

    await h.runtime.send({ text: '/tool fixture__echo {"text": "free"}' });
    await until(h, () => h.ofType('tool.completed').length === 1);
    expect(await code(h.runtime.approveToolCall(h.ofType('tool.called')[0]!.callId))).toBe(
      'TOOL_CALL_NOT_PENDING/-32010',
    );
  });

  it('does not ask an operator about a call whose arguments do not fit: the model hears at once', async () => {
    const countFile = join(tempDir(), 'count');
    const h = await offlineRuntime(countFile);
    const { turnId } = await h.runtime.send({ text: '/tool fixture__tally {"text": 7}' });
    await until(h, () => endingsOf(h.events, turnId).length === 1);
    expect(endingsOf(h.events, turnId)[0]).toMatchObject({
      type: 'agent.reply',
      text: expect.stringMatching(/^mcp__fixture__tally failed:\n.*input schema/s),
    });
    expect(h.ofType('tool.approval_requested')).toEqual([]);
    expect(h.runtime.pendingToolCalls()).toEqual([]);
  });

  it('keeps a pending call across a crash: listed again, its turn still waits, and approving it answers the turn once', async () => {
    const countFile = join(tempDir(), 'count');
    const h = await offlineRuntime(countFile);
    // The crashed runtime's servers are stopped last, as after kill -9 nothing it does reaches the db.
    cleanups.push(() => (h.runtime as unknown as { core: { parts: { close(): Promise<void> } } }).core.parts.close());
    const { turnId } = await h.runtime.send({ text: '/tool fixture__tally {"text": "after the crash"}' });
    await until(h, () => h.ofType('tool.approval_requested').length === 1);
    const { callId } = h.ofType('tool.approval_requested')[0]!;
    await h.crash();

    const clock = createSimulatedClock(h.clock.now());
    const bus = new EventBus({ clock, currentBeat: () => 0 });
    const events: VigilEvent[] = [];
    bus.events$.subscribe((event) => events.push(event));
    const next = await startRuntime({ db: h.db, clock, bus, config: mcpConfig(countFile) });
    cleanups.push(() => next.runtime.stop());
    await until(next, () => events.some((e) => e.type === 'mcp.server_up'));
    expect(next.runtime.pendingToolCalls()).toEqual([
      expect.objectContaining({ callId, turnId, name: 'mcp__fixture__tally' }),
    ]);
    await next.advance(5000, 1000);
    expect(endingsOf(events, turnId)).toEqual([]);
    expect(events.filter((e) => e.type === 'tool.interrupted' || e.type === 'tool.approval_requested')).toEqual([]);

    await next.runtime.approveToolCall(callId);
    await until(next, () => endingsOf(events, turnId).length === 1);
    expect(endingsOf(events, turnId)[0]).toMatchObject({
      type: 'agent.reply',
      text: expect.stringMatching(/approved by the operator and returned:\nafter the crash$/),
    });
    expect(calls(countFile)).toBe(1);
  });

  it('an approved call a crash cut short is not run again: tool.interrupted once, and its turn is told the outcome is unknown', async () => {
    const countFile = join(tempDir(), 'count');
    const h = await offlineRuntime(countFile);
    cleanups.push(() => (h.runtime as unknown as { core: { parts: { close(): Promise<void> } } }).core.parts.close());
    const { turnId } = await h.runtime.send({ text: '/tool fixture__hang' });
    await until(h, () => h.ofType('tool.approval_requested').length === 1);
    const { callId } = h.ofType('tool.approval_requested')[0]!;
    await h.runtime.approveToolCall(callId);
    await until(h, () => calls(countFile) === 1);
    await h.crash();

    const clock = createSimulatedClock(h.clock.now());
    const bus = new EventBus({ clock, currentBeat: () => 0 });
    const events: VigilEvent[] = [];
    bus.events$.subscribe((event) => events.push(event));
    const next = await startRuntime({ db: h.db, clock, bus, config: mcpConfig(countFile) });
    cleanups.push(() => next.runtime.stop());
    expect(events.filter((e) => e.type === 'tool.interrupted')).toEqual([expect.objectContaining({ callId })]);
    await until(next, () => endingsOf(events, turnId).length === 1);
    expect(endingsOf(events, turnId)[0]).toMatchObject({
      type: 'agent.reply',
      text: expect.stringMatching(/approved by the operator, but a restart interrupted it: its outcome is unknown/),
    });
    await next.advance(3000, 1000);
    expect(calls(countFile)).toBe(1);
    expect(endingsOf(events, turnId)).toHaveLength(1);
  });
});

describe('tool-call approvals with the Anthropic thinker (fake Messages API)', () => {
  let api: FakeMessagesApi;
  afterEach(async () => {
    await api?.close();
  });

  it('the model is offered the tool, told the call waits, and after a denial is told why in the turn’s next think, which answers', async () => {
    api = await startFakeMessagesApi();
    const countFile = join(tempDir(), 'count');
    const h = await startAnthropicRuntime(api, { config: mcpConfig(countFile) });
    cleanups.push(() => h.runtime.stop());
    await untilThought(h, () => h.ofType('mcp.server_up').length === 1);
    api.enqueue(
      message([text('I will ask for approval.'), toolUse('mcp__fixture__tally', { text: 'ship it' })]),
      message([text('Asked; waiting for the operator.')]),
    );
    const { turnId } = await h.runtime.send({ text: 'Please ship it.' });
    await untilThought(h, () => h.ofType('tool.approval_requested').length === 1 && api.requests.length === 2);
    await h.runFor(3000);
    const tools = (api.requests[0]!.body.tools as Array<{ name: string }>).map((t) => t.name);
    expect(tools).toContain('mcp__fixture__tally');
    const [result] = (
      api.requests[1]!.body.messages.at(-1).content as Array<{
        type: string;
        content: Array<{ text: string }>;
        is_error?: boolean;
      }>
    ).filter((b) => b.type === 'tool_result');
    expect(result!.is_error).toBeUndefined();
    expect(result!.content[0]!.text).toMatch(/needs an operator's approval and was not run/);
    // The model's closing text did not end the turn: it waits for the decision, and no think runs meanwhile.
    expect(endingsOf(h.events, turnId)).toEqual([]);
    expect(api.requests).toHaveLength(2);

    const { callId } = h.ofType('tool.approval_requested')[0]!;
    api.enqueue(
      message([toolUse('reply', { turnId, text: 'The operator said no: not during the freeze.' })]),
      message([text('')]),
    );
    await h.runtime.denyToolCall({ callId, reason: 'release freeze until Monday' });
    await untilThought(h, () => endingsOf(h.events, turnId).length === 1);
    const state = JSON.stringify(api.requests[2]!.body.messages[0].content);
    expect(state).toContain(`- turn ${turnId} from`);
    expect(state).toMatch(
      /was denied by the operator \(the reason given: release freeze until Monday\)\. It was not run\./,
    );
    expect(endingsOf(h.events, turnId)).toEqual([
      expect.objectContaining({ type: 'agent.reply', text: 'The operator said no: not during the freeze.' }),
    ]);
    expect(calls(countFile)).toBe(0);
  });
});
