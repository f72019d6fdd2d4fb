/** `tools.pending`, `tools.approve`, `tools.deny` over a real gateway (JSON-RPC codes, params) and `vigil tools pending|approve|deny`, with the stdio MCP fixture behind the runtime. */
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { stdioFixture } from '../subsystems/tools/mcp-hub.fixture.js';
import { advanceUntil, cliIo, startGatewayHarness, type GatewayHarness } from './gateway.fixture.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The CLI in-process against the gateway: exit code, stdout, stderr. */
async function cli(harness: GatewayHarness, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = cliIo(harness);
  const code = await main(argv, io);
  return { code, stdout: io.out(), stderr: io.err() };
}

const requested = (events: readonly VigilEvent[]) =>
  events.filter(
    (e): e is Extract<VigilEvent, { type: 'tool.approval_requested' }> => e.type === 'tool.approval_requested',
  );

describe('tool approvals over the gateway and the CLI', () => {
  it('lists waiting calls, approves and denies them, and answers unknown, decided and malformed requests with their codes', async () => {
    h = await startGatewayHarness({
      runtime: { config: { mcp: { mcpServers: { fixture: stdioFixture({}, { requireApproval: ['echo', 'add'] }) } } } },
    });
    const harness = h;
    await advanceUntil(harness, () => harness.events.some((e) => e.type === 'mcp.server_up'));
    const client = await harness.connect();
    expect((await client.request('tools.pending')).result).toEqual([]);
    expect((await cli(harness, ['tools', 'pending'])).stderr).toBe('vigil: no tool call waits for approval.\n');

    const { turnId } = await harness.runtime.send({ text: '/tool fixture__echo {"text": "line one\\nline two"}' });
    await harness.runtime.send({ text: '/tool fixture__add {"a": 2, "b": 3}' });
    await advanceUntil(harness, () => requested(harness.events).length === 2);
    const [echo, add] = requested(harness.events);
    const pending = await client.request('tools.pending');
    expect(pending.result).toEqual([
      {
        callId: echo!.callId,
        name: 'mcp__fixture__echo',
        args: { text: 'line one\nline two' },
        turnId,
        requestedAt: expect.any(String),
      },
      expect.objectContaining({ callId: add!.callId, name: 'mcp__fixture__add', args: { a: 2, b: 3 } }),
    ]);

    // The CLI: one line per call, control characters of the arguments escaped.
    const listed = await cli(harness, ['tools', 'pending']);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]!.split('\t')).toEqual([
      echo!.callId,
      'mcp__fixture__echo',
      expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      turnId,
      '{"text":"line one\\nline two"}',
    ]);
    expect(JSON.parse((await cli(harness, ['tools', 'pending', '--json'])).stdout)).toEqual(pending.result);

    const approved = await cli(harness, ['tools', 'approve', echo!.callId]);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({
      callId: echo!.callId,
      name: 'mcp__fixture__echo',
      approved: true,
      decidedAt: expect.any(String),
    });
    const denied = await cli(harness, ['tools', 'deny', add!.callId, '--reason', 'no arithmetic today']);
    expect(denied.code).toBe(0);
    expect(JSON.parse(denied.stdout)).toMatchObject({
      callId: add!.callId,
      approved: false,
      reason: 'no arithmetic today',
    });
    expect((await client.request('tools.pending')).result).toEqual([]);
    await advanceUntil(harness, () => harness.events.filter((e) => e.type === 'agent.reply').length === 2);

    // Errors: -32010 for a decided call, -32004 for an unknown one, -32602 for bad params; the CLI exits 1 or 2.
    const again = await client.request('tools.approve', { callId: echo!.callId });
    expect(again.error).toMatchObject({
      code: -32010,
      data: { vigilCode: 'TOOL_CALL_NOT_PENDING', callId: echo!.callId, state: 'approved' },
    });
    const unknown = await client.request('tools.deny', { callId: 'call-nope' });
    expect(unknown.error).toMatchObject({
      code: -32004,
      data: { vigilCode: 'TOOL_CALL_NOT_FOUND', callId: 'call-nope' },
    });
    expect((await client.request('tools.approve', {})).error).toMatchObject({ code: -32602 });
    expect((await client.request('tools.deny', { callId: 'x', reason: 7 })).error).toMatchObject({ code: -32602 });
    expect((await client.request('tools.approve', { callId: 'x', reason: 'no' })).error).toMatchObject({
      code: -32602,
    });
    const cliAgain = await cli(harness, ['tools', 'deny', add!.callId]);
    expect(cliAgain.code).toBe(1);
    // One human line (src/client/commands/rpc-error-advice.ts); `--json` would print the -32010 object.
    expect(cliAgain.stderr).toMatch(/^vigil: Tool call \S+ is not waiting for approval: it was already denied\.\n$/);
    expect((await cli(harness, ['tools', 'approve'])).code).toBe(2);
    expect((await cli(harness, ['tools', 'approve', 'a', 'b'])).code).toBe(2);
    expect((await cli(harness, ['tools', 'pending', '--reason', 'x'])).code).toBe(2);
  });
});
