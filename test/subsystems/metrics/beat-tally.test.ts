/** The beat tally: what beats add to the metrics reaches prom-client when the metrics are read, and never piles up. */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { BeatTally } from '../../../src/subsystems/metrics/beat-tally.js';
import { VigilMetrics } from '../../../src/subsystems/metrics/vigil-metrics.js';
import { EventBus } from '../../../src/events/event-bus.js';
import { createSimulatedClock } from '../../../src/shared/clock.js';

function targets() {
  const registers = [new Registry()];
  return {
    events: new Counter({ name: 'e_total', help: 'e', labelNames: ['type'] as const, registers }),
    beats: new Counter({ name: 'b_total', help: 'b', registers }),
    beatDuration: new Histogram({ name: 'd_seconds', help: 'd', buckets: [0.001, 1], registers }),
    beatDelay: new Histogram({ name: 'l_seconds', help: 'l', buckets: [0.001, 1], registers }),
  };
}

const countOf = async (histogram: Histogram) =>
  (await histogram.get()).values.find((v) => v.metricName?.endsWith('_count'))?.value ?? 0;

describe('BeatTally', () => {
  it('hands its tally over on flush, and by itself once 1,024 beats are pending', async () => {
    const t = targets();
    const tally = new BeatTally();
    tally.useTargets(t);
    for (let i = 0; i < 1023; i += 1) tally.beat(0.0001, i === 0 ? undefined : 0.002);
    tally.event('heartbeat.beat');
    expect(await countOf(t.beatDuration)).toBe(0);
    tally.beat(0.5, 0.002);
    expect(await countOf(t.beatDuration)).toBe(1024);
    expect(await countOf(t.beatDelay)).toBe(1023);
    expect((await t.beats.get()).values[0]?.value).toBe(1024);
    tally.beat(0.5, 0.002);
    tally.flush();
    expect(await countOf(t.beatDuration)).toBe(1025);
    expect((await t.events.get()).values).toEqual([
      expect.objectContaining({ labels: { type: 'heartbeat.beat' }, value: 1 }),
    ]);
  });

  it('is read through by a scrape of VigilMetrics, every beat and event counted', async () => {
    const clock = createSimulatedClock(Date.parse('2026-03-01T10:00:00Z'));
    const bus = new EventBus({ clock, currentBeat: () => 0 });
    const metrics = new VigilMetrics({ defaultMetrics: false });
    metrics.observe(bus);
    for (let i = 1; i <= 3000; i += 1)
      bus.emit('heartbeat.beat', {
        beatCount: i,
        intervalMs: 1000,
        phaseMs: { sense: 0.01, think: 0, integrate: 0.02 },
      });
    const text = await metrics.text();
    expect(text).toContain('vigil_beats_total 3000');
    expect(text).toContain('vigil_beat_duration_seconds_count 3000');
    expect(text).toContain('vigil_beat_delay_seconds_count 2999');
    expect(text).toContain('vigil_events_total{type="heartbeat.beat"} 3000');
    bus.close();
    metrics.close();
  });
});
