import { describe, expect, it, vi } from 'vitest';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { counterSeq, EventBus } from '../../src/events/event-bus.js';
import { typeMatcher } from '../../src/events/event-filter.js';
import { ALL_EVENT_TYPES, VigilEventSchema } from '../../src/protocol/events.schema.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { settle } from '../fixtures/runtime.fixture.js';

function makeBus(onSubscriberError?: (err: unknown) => void) {
  const clock = createSimulatedClock(Date.parse('2026-05-01T12:00:00Z'));
  let beat = 7;
  const bus = new EventBus({
    clock,
    currentBeat: () => beat,
    seq: counterSeq(41),
    ...(onSubscriberError ? { onSubscriberError } : {}),
  });
  return { bus, clock, setBeat: (b: number) => (beat = b) };
}

describe('EventBus', () => {
  it('stamps every event with a growing seq, ISO time and the current beat', () => {
    const { bus } = makeBus();
    const seen: VigilEvent[] = [];
    bus.events$.subscribe((e) => seen.push(e));
    bus.emit('checkpoint.failed', { reason: 'disk full' });
    bus.emit('agent.reply', { turnId: 't1', text: 'hi' });
    expect(seen).toEqual([
      { seq: 42, type: 'checkpoint.failed', at: '2026-05-01T12:00:00.000Z', beat: 7, reason: 'disk full' },
      { seq: 43, type: 'agent.reply', at: '2026-05-01T12:00:00.000Z', beat: 7, turnId: 't1', text: 'hi' },
    ]);
    for (const event of seen) expect(VigilEventSchema.parse(event)).toEqual(event);
  });

  it('hands a live-only event to its listeners with time and beat but no seq, apart from events$, and to nobody when none listens', () => {
    const { bus } = makeBus();
    const events: VigilEvent[] = [];
    bus.events$.subscribe((e) => events.push(e));
    bus.emitLive('agent.reply_delta', { turnId: 't1', text: 'unheard' });
    expect(bus.hasLiveListeners()).toBe(false);
    const live: unknown[] = [];
    const subscription = bus.liveEvents$.subscribe((e) => live.push(e));
    expect(bus.hasLiveListeners()).toBe(true);
    bus.emitLive('agent.reply_delta', { turnId: 't1', text: 'Hel' });
    bus.emit('agent.reply', { turnId: 't1', text: 'Hello' });
    subscription.unsubscribe();
    expect(bus.hasLiveListeners()).toBe(false);
    expect(live).toEqual([
      { type: 'agent.reply_delta', at: '2026-05-01T12:00:00.000Z', beat: 7, turnId: 't1', text: 'Hel' },
    ]);
    // No seq was spent on it: the reply has the next one.
    expect(events.map((e) => [e.seq, e.type])).toEqual([[42, 'agent.reply']]);
  });

  it('filters by exact type and by prefix.*', () => {
    const { bus } = makeBus();
    const checkpoints: string[] = [];
    const exact: string[] = [];
    bus.select(['checkpoint.*']).subscribe((e) => checkpoints.push(e.type));
    bus.select(['agent.reply']).subscribe((e) => exact.push(e.type));
    bus.emit('checkpoint.created', { checkpointId: 'c', beatCount: 1, sizeBytes: 10, durationMs: 1 });
    bus.emit('agent.reply', { turnId: 't', text: 'x' });
    bus.emit('agent.ack', { turnId: 't', text: 'x' });
    bus.emit('checkpoint.corrupt', { checkpointId: 'c', reason: 'bad' });
    expect(checkpoints).toEqual(['checkpoint.created', 'checkpoint.corrupt']);
    expect(exact).toEqual(['agent.reply']);
  });

  it('keeps emitting to everyone when a subscriber throws, and reports the error', async () => {
    const onError = vi.fn();
    const { bus } = makeBus(onError);
    const before: number[] = [];
    const after: number[] = [];
    bus.events$.subscribe((e) => before.push(e.seq));
    bus.events$.subscribe(() => {
      throw new Error('subscriber bug');
    });
    bus.events$.subscribe((e) => after.push(e.seq));
    expect(() => bus.emit('checkpoint.failed', { reason: 'x' })).not.toThrow();
    expect(() => bus.emit('checkpoint.failed', { reason: 'y' })).not.toThrow();
    await settle();
    expect(before).toEqual([42, 43]);
    expect(after).toEqual([42, 43]);
    // RxJS reports a throwing subscriber on its own timer; wait for that report, not for time.
    await vi.waitFor(() =>
      expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'subscriber bug' })),
    );
  });
});

describe('typeMatcher', () => {
  it('matches everything without patterns, exact names, and prefixes ending in *', () => {
    expect(typeMatcher(undefined)('anything')).toBe(true);
    expect(typeMatcher([])('anything')).toBe(true);
    const m = typeMatcher(['agent.reply', 'checkpoint.*']);
    expect(m('agent.reply')).toBe(true);
    expect(m('agent.replyx')).toBe(false);
    expect(m('checkpoint.created')).toBe(true);
    expect(m('heartbeat.beat')).toBe(false);
  });

  it('knows every contract event type', () => {
    for (const type of [
      'heartbeat.beat',
      'checkpoint.created',
      'checkpoint.restored',
      'checkpoint.failed',
      'checkpoint.corrupt',
      'agent.budget_updated',
      'agent.sleeping',
      'agent.waking',
      'agent.budget_exceeded',
      'agent.preempted',
      'agent.ack',
      'agent.reply',
      'agent.debrief',
      'think.completed',
      'actor.crashed',
      'actor.restarted',
      // CONTRACT §8's tool events, and the approvals' extension.
      'tool.called',
      'tool.completed',
      'tool.approval_requested',
      'tool.interrupted',
      'tool.approval_decided',
      // CONTRACT §10, cache health.
      'think.cache_prefix_short',
      'think.cache_miss',
    ]) {
      expect(ALL_EVENT_TYPES).toContain(type);
    }
  });
});
