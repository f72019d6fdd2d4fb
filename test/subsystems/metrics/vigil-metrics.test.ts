import { describe, expect, it } from 'vitest';
import { EventBus } from '../../../src/events/event-bus.js';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import { VigilMetrics } from '../../../src/subsystems/metrics/vigil-metrics.js';
import { startRuntime } from '../../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../../fixtures/scripted-thinker.js';

/** The value of `name{labels}` in Prometheus text (0 when absent). */
function sample(text: string, name: string, labels = ''): number {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}${labels} `) || (labels === '' && l.startsWith(`${name} `)));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

describe('VigilMetrics', () => {
  it('counts beats, thinks, tokens, money and checkpoints from the event bus', async () => {
    const thinker = new ScriptedThinker();
    thinker.costMicroUsd = 250_000;
    const h = await startRuntime({ thinker, config: { dailyBudgetUsd: 10 } });
    const metrics = h.metrics;
    await h.runtime.send({ text: 'count me' });
    await h.advance(5000);
    const text = await metrics.text();
    expect(sample(text, 'vigil_beats_total')).toBe(5);
    expect(sample(text, 'vigil_think_calls_total', '{outcome="completed"}')).toBe(1);
    expect(sample(text, 'vigil_think_tokens_total', '{kind="input"}')).toBe(100);
    expect(sample(text, 'vigil_budget_spent_today_usd')).toBe(0.25);
    expect(sample(text, 'vigil_budget_daily_cap_usd')).toBe(10);
    expect(sample(text, 'vigil_checkpoints_created_total')).toBe(1);
    expect(sample(text, 'vigil_checkpoint_save_duration_seconds_count')).toBe(1);
    expect(sample(text, 'vigil_checkpoint_size_bytes')).toBeGreaterThan(100);
    expect(sample(text, 'vigil_beat_duration_seconds_count')).toBe(5);
    expect(text).toContain('vigil_process_cpu_user_seconds_total');
    metrics.requestHandled('heartbeat.status', 0);
    metrics.requestHandled('goals.complete', -32004);
    metrics.connectionDelta(1);
    metrics.eventsDropped(3);
    const after = await metrics.text();
    expect(sample(after, 'vigil_gateway_requests_total', '{method="goals.complete",code="-32004"}')).toBe(1);
    expect(sample(after, 'vigil_gateway_connections')).toBe(1);
    expect(sample(after, 'vigil_events_dropped_total')).toBe(3);
    await h.runtime.stop();
  });

  it('tracks each MCP server: up or down, connection attempts by outcome, losses and its tool count', async () => {
    const bus = new EventBus({ clock: createSimulatedClock(), currentBeat: () => 0 });
    const metrics = new VigilMetrics({ defaultMetrics: false });
    metrics.observe(bus);
    bus.emit('mcp.server_down', { server: 'fs', reason: 'spawn ENOENT', wasUp: false, retryInMs: 1000 });
    bus.emit('mcp.server_down', { server: 'fs', reason: 'spawn ENOENT', wasUp: false, retryInMs: 2000 });
    bus.emit('mcp.server_up', { server: 'fs', tools: 4, attempt: 3 });
    bus.emit('mcp.server_up', { server: 'web', tools: 2, attempt: 1 });
    bus.emit('mcp.tools_changed', { server: 'web', tools: 3 });
    bus.emit('mcp.server_down', { server: 'web', reason: 'closed', wasUp: true, retryInMs: 1000 });
    const text = await metrics.text();
    expect(sample(text, 'vigil_mcp_server_up', '{server="fs"}')).toBe(1);
    expect(sample(text, 'vigil_mcp_server_up', '{server="web"}')).toBe(0);
    expect(sample(text, 'vigil_mcp_connection_attempts_total', '{server="fs",outcome="failed"}')).toBe(2);
    expect(sample(text, 'vigil_mcp_connection_attempts_total', '{server="fs",outcome="connected"}')).toBe(1);
    expect(sample(text, 'vigil_mcp_server_lost_total', '{server="web"}')).toBe(1);
    expect(sample(text, 'vigil_mcp_tools', '{server="fs"}')).toBe(4);
    expect(sample(text, 'vigil_mcp_tools', '{server="web"}')).toBe(3);
    metrics.close();
  });
});
