/** The channel's messages for the event types it pushes, and the gateway's `/mcp` server not declaring the channel. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { channelMessage } from '../../src/client/mcp/channel-messages.js';
import { createVigilMcpServer } from '../../src/client/mcp/vigil-mcp-server.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';

const AT = '2026-03-01T10:00:00.000Z';
const event = (fields: Record<string, unknown>): VigilEvent =>
  ({ seq: 7, at: AT, beat: 1, ...fields }) as unknown as VigilEvent;

describe('channelMessage', () => {
  it('says why a turn ended unanswered, with its code and sender', () => {
    expect(
      channelMessage(
        event({ type: 'agent.unanswered', turnId: 't1', code: 'TURN_STUCK', reason: 'no answer after 3 thinks' }),
        'schedule:daily',
      ),
    ).toEqual({
      content: 'The agent ended turn t1 without an answer (TURN_STUCK): no answer after 3 thinks',
      meta: { event: 'agent.unanswered', seq: '7', at: AT, turn_id: 't1', from: 'schedule:daily', code: 'TURN_STUCK' },
    });
  });

  it('pushes a task a crash failed, not one requeued to run again', () => {
    const interrupted = { type: 'swarm.task_interrupted', taskId: 'k1', turnId: 't1', callIds: ['c1'] };
    expect(channelMessage(event({ ...interrupted, outcome: 'failed' }))?.meta).toEqual({
      event: 'swarm.task_interrupted',
      seq: '7',
      at: AT,
      task_id: 'k1',
      turn_id: 't1',
      status: 'failed',
    });
    expect(channelMessage(event({ ...interrupted, outcome: 'requeued' }))).toBeUndefined();
  });

  it('cuts long approval arguments, and pushes nothing for the turn-opening message itself', () => {
    const approval = channelMessage(
      event({ type: 'tool.approval_requested', callId: 'c9', name: 'shell', args: { script: 'x'.repeat(5000) } }),
    );
    expect(approval?.content.length).toBeLessThan(2300);
    expect(approval?.content).toMatch(/… \(cut\)$/);
    expect(approval?.meta).not.toHaveProperty('turn_id');
    expect(channelMessage(event({ type: 'agent.message', turnId: 't1', text: 'hi', from: 'cli' }))).toBeUndefined();
  });
});

describe("the gateway's /mcp server", () => {
  it('does not declare claude/channel: it pushes nothing', async () => {
    const server = createVigilMcpServer({ openLink: () => Promise.reject(new Error('unused')), where: 'test' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'host', version: '1' });
    await client.connect(clientSide);
    expect(client.getServerCapabilities()).not.toHaveProperty('experimental');
    expect(client.getInstructions()).not.toMatch(/<channel>/);
    await client.close();
  });
});
